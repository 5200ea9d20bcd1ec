package mix

import (
	"context"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
	"tierbench/internal/engine/mysql"
	"tierbench/internal/engine/postgres"
)

// TestManagedServers loads and runs point-select and the policy mix briefly on managed
// PostgreSQL and MariaDB/MySQL. CI=true turns a missing server into a failure.
func TestManagedServers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		installed func() error
		set       map[string]string
	}{
		{"postgres", postgres.Installed, map[string]string{"fsync": "off", "synchronous_commit": "off"}},
		{"mysql", mysql.Installed, map[string]string{"innodb_flush_log_at_trx_commit": "0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enginetest.RequireServer(t, tc.installed())
			e, err := engine.Open(context.Background(), engine.Config{Name: tc.name, Dir: enginetest.ServerDir(t), Settings: tc.set})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			for _, name := range []string{"point-select", "policy", "ecommerce", "bbs"} {
				scale := 0.1
				if name != "point-select" && name != "policy" {
					scale = 0.02
				}
				loadAndRun(t, e, mustOpen(t, name), scale, 2, 2*time.Second)
			}
		})
	}
}
