package mix

import (
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
		})
	}
}
