package servertest

import (
	"context"
	"strings"
	"testing"

	"tierbench/internal/engine"
)

// TestInstalledVersion: the version a server's driver says it would run, without
// starting it, holds the version the running server reports, so a study that
// compares them reuses a snapshot on the server that made it.
func TestInstalledVersion(t *testing.T) {
	for _, s := range Servers {
		t.Run(s.Name, func(t *testing.T) {
			e := s.Open(t, engine.Config{}, true)
			info, err := e.Info(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			got, err := engine.InstalledVersion(s.Name)
			if err != nil || info.Version == "" || !strings.Contains(got, info.Version) {
				t.Errorf("InstalledVersion(%s) = %q, %v; want it to hold the server's version %q", s.Name, got, err, info.Version)
			}
		})
	}
}
