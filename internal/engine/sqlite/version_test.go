package sqlite

import (
	"context"
	"testing"

	"tierbench/internal/engine"
)

// TestInstalledVersion: the version the driver says a run would get is the one an
// open database reports.
func TestInstalledVersion(t *testing.T) {
	e, err := engine.Open(context.Background(), engine.Config{Name: "sqlite", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	info, err := e.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := engine.InstalledVersion("sqlite")
	if err != nil || got == "" || got != info.Version {
		t.Errorf("InstalledVersion(sqlite) = %q, %v; want %q, as Info says", got, err, info.Version)
	}
}
