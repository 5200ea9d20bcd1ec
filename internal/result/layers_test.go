package result

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestWorkloadsLinkNoEngine: the workloads, the results they write and the decoder
// of result files link no emulator, no FUSE and no engine implementation or its
// driver, so that a report, a study or a workload's tests build without them; the engine's facts they need come
// from package engine (Dialect), and the lifecycle puts the pieces together.
func TestWorkloadsLinkNoEngine(t *testing.T) {
	forbidden := []string{
		"tierbench/internal/emulator", "tierbench/internal/placement", "tierbench/internal/engine/",
		"github.com/hanwen/go-fuse", "github.com/jackc/pgx", "github.com/go-sql-driver/mysql", "github.com/mattn/go-sqlite3",
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, pkgs := range []string{"tierbench/internal/result/...", "tierbench/internal/workload/...", "tierbench/internal/resultfile"} {
		out, err := exec.Command(goTool, "list", "-deps", pkgs).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkgs, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list -deps %s lists %d packages: %q", pkgs, len(deps), out)
		}
		for _, dep := range deps {
			for _, f := range forbidden {
				if strings.HasPrefix(dep, f) {
					t.Errorf("%s links %s", pkgs, dep)
				}
			}
		}
	}
}
