package layers

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// rule is what the packages a pattern names must not link, and why.
type rule struct {
	pkgs   []string // go list patterns
	forbid []string // a path forbids itself and what is under it; a path ending in "/" only what is under it
	allow  []string // exact packages the forbid does not cover
	why    string
}

var leaves = []string{
	"tierbench/internal/device", "tierbench/internal/energy", "tierbench/internal/params",
	"tierbench/internal/capacity", "tierbench/internal/metrics", "tierbench/internal/rundir", "tierbench/internal/host",
	"tierbench/internal/yamltext",
}

var rules = []rule{
	{leaves, []string{"tierbench/"}, leaves,
		"a leaf imports nothing of tierbench but other leaves, so that every package may use it"},
	{[]string{"tierbench/internal/emulator/preload"},
		[]string{"tierbench/internal/engine", "tierbench/internal/monitor", "tierbench/internal/verdict", "tierbench/internal/result",
			"tierbench/internal/placement", "tierbench/internal/lifecycle", "tierbench/internal/workload"},
		nil, "the shared-memory ring is shared by the shim, the SQLite VFS and the emulator's server, and carries requests only"},
	{[]string{"tierbench/internal/workload/...", "tierbench/internal/result/...", "tierbench/internal/resultfile"},
		[]string{"tierbench/internal/emulator", "tierbench/internal/placement", "tierbench/internal/engine/",
			"github.com/hanwen/go-fuse", "github.com/jackc/pgx", "github.com/go-sql-driver/mysql", "github.com/mattn/go-sqlite3"},
		nil, "workloads, results and their decoder know engines through package engine; the lifecycle puts engine, placement and workload together"},
	{[]string{"tierbench/internal/lifecycle"},
		[]string{"tierbench/internal/workload/", "tierbench/internal/report", "tierbench/internal/runreport", "tierbench/internal/study"},
		nil, "the lifecycle knows workloads through their registry and writes results, not reports"},
}

// forbidden reports whether dep is one of what forbid names.
func forbidden(dep string, forbid []string) (string, bool) {
	for _, f := range forbid {
		if strings.HasSuffix(f, "/") {
			if strings.HasPrefix(dep, f) {
				return f, true
			}
			continue
		}
		if dep == f || strings.HasPrefix(dep, f+"/") {
			return f, true
		}
	}
	return "", false
}

func TestForbidden(t *testing.T) {
	for _, tc := range []struct {
		dep    string
		forbid []string
		want   bool
	}{
		{"tierbench/internal/engine/sqlite", []string{"tierbench/internal/engine/"}, true},
		{"tierbench/internal/engine", []string{"tierbench/internal/engine/"}, false},
		{"tierbench/internal/engine", []string{"tierbench/internal/engine"}, true},
		{"tierbench/internal/engine/mysql", []string{"tierbench/internal/engine"}, true},
		{"tierbench/internal/engineering", []string{"tierbench/internal/engine"}, false},
		{"tierbench/internal/reporter", []string{"tierbench/internal/report"}, false},
		{"tierbench/internal/report/chart", []string{"tierbench/internal/report"}, true},
		{"github.com/jackc/pgx/v5/pgconn", []string{"github.com/jackc/pgx"}, true},
		{"tierbench/internal/params", []string{"tierbench/"}, true},
		{"fmt", []string{"tierbench/"}, false},
	} {
		if _, got := forbidden(tc.dep, tc.forbid); got != tc.want {
			t.Errorf("forbidden(%s, %v) = %v, want %v", tc.dep, tc.forbid, got, tc.want)
		}
	}
}

// deps lists each package the patterns name with what it links (go list -deps: the
// packages it imports, directly or not, without tests).
func deps(t *testing.T, patterns []string) map[string][]string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	args := append([]string{"list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}"}, patterns...)
	out, err := exec.Command(goTool, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 {
			pkgs[f[0]] = f[1:]
		}
	}
	return pkgs
}

// TestLayers checks every rule against the packages as they build.
func TestLayers(t *testing.T) {
	for _, r := range rules {
		pkgs := deps(t, r.pkgs)
		if len(pkgs) < len(r.pkgs) {
			t.Fatalf("%v name %d packages: %v", r.pkgs, len(pkgs), pkgs)
		}
		for pkg, ds := range pkgs {
			if len(ds) == 0 { // every package links some of the standard library
				t.Errorf("%s links nothing at all: go list gave no dependencies", pkg)
			}
			for _, d := range ds {
				if f, bad := forbidden(d, r.forbid); bad && !slices.Contains(r.allow, d) {
					t.Errorf("%s links %s, which the rule against %s forbids: %s", pkg, d, f, r.why)
				}
			}
		}
	}
}
