package mix

import (
	"context"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/engine/servertest"
)

// TestManagedServers loads and runs point-select and the policy mix briefly on managed
// PostgreSQL and MariaDB/MySQL. CI=true turns a missing server into a failure.
func TestManagedServers(t *testing.T) {
	for _, srv := range servertest.Servers {
		t.Run(srv.Name, func(t *testing.T) {
			e := srv.Open(t, engine.Config{}, true)
			for _, name := range []string{"point-select", "policy", "ecommerce", "bbs"} {
				scale := 0.1
				if name != "point-select" && name != "policy" {
					scale = 0.02
				}
				loadAndRun(t, e, mustOpen(t, name), scale, 2, 2*time.Second)
			}
			// Server sessions run every statement on their own prepared statements
			// (engine.Preparer: pgconn on PostgreSQL, the binary protocol beneath
			// go-sql-driver on MariaDB), not through the driver's.
			ctx := context.Background()
			wl, err := NewWorkload(ctx, e, mustOpen(t, "bbs"), WorkloadConfig{Seed: 1}) // the mix loaded last
			if err != nil {
				t.Fatal(err)
			}
			w, err := wl.NewWorker(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			own, all := 0, 0
			for _, ps := range w.(*worker).fast {
				for _, p := range ps {
					all++
					if p != nil {
						own++
					}
				}
			}
			if own != all || all == 0 {
				t.Errorf("%d of %d statements on the session's own prepared statements, want all", own, all)
			}
		})
	}
}
