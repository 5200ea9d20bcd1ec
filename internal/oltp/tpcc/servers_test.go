package tpcc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
	_ "tierbench/internal/engine/mysql"
	_ "tierbench/internal/engine/postgres"
)

// findServer looks for a server binary by name on PATH and in the given globs.
func findServer(names []string, globs []string) error {
	for _, n := range names {
		if _, err := exec.LookPath(n); err == nil {
			return nil
		}
		for _, g := range globs {
			if m, _ := filepath.Glob(filepath.Join(g, n)); len(m) > 0 {
				return nil
			}
		}
	}
	return errors.New("none of " + filepath.Join(names...) + " is installed")
}

// serverDir is a directory the server's user can reach (t.TempDir's parents are 0700).
func serverDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tierbench-tpcctest-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// TestManagedServers loads W=1, checks, runs 2 users for 5 s and checks again on
// managed PostgreSQL and MariaDB/MySQL. CI=true turns a missing server into a failure.
func TestManagedServers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		binary []string
		globs  []string
		set    map[string]string
	}{
		{"postgres", []string{"initdb"}, []string{"/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin", "/usr/pgsql-*/bin"},
			map[string]string{"fsync": "off", "synchronous_commit": "off"}},
		{"mysql", []string{"mariadbd", "mysqld"}, []string{"/usr/sbin", "/usr/local/mysql/bin"},
			map[string]string{"innodb_flush_log_at_trx_commit": "0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			enginetest.RequireServer(t, findServer(tc.binary, tc.globs))
			e, err := engine.Open(context.Background(), engine.Config{Name: tc.name, Dir: serverDir(t), Settings: tc.set})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			info := loadW1(t, e)
			checkCardinalities(t, e, info)
			checkLoadedData(t, e, 1, 42)
			checkAll(t, e)
			res := runAndCheck(t, e, info, []int{2})
			t.Logf("%s 2 users: nopm %.0f (server %.0f), tpm %.0f", tc.name, res.NOPM, res.NOPMServer, res.TPM)
			serverCrash(t, e)
		})
	}
}

// serverCrash kills the server in the middle of a run: the run must stop soon, be
// marked failed with the cause, and keep what it measured in result.json.
func serverCrash(t *testing.T, e engine.Engine) {
	srv, ok := e.(engine.Server)
	if !ok {
		t.Fatal("a managed engine is not an engine.Server")
	}
	pid := srv.ServerPID()
	out := t.TempDir()
	kill := time.AfterFunc(3*time.Second, func() { syscall.Kill(pid, syscall.SIGKILL) })
	defer kill.Stop()
	start := time.Now()
	res, err := Run(context.Background(), e, RunConfig{Users: []int{2}, Duration: time.Minute, Interval: time.Second, OutDir: out})
	took := time.Since(start)
	if err == nil || res == nil {
		t.Fatalf("run survived the server's death: err %v", err)
	}
	t.Logf("after the crash (%v): %v", took.Round(time.Millisecond), err)
	if took > 20*time.Second {
		t.Errorf("the run took %v to notice the crash", took)
	}
	if res.Status != "failed" || res.Error == "" || res.TPM <= 0 {
		t.Errorf("status %q error %q tpm %v: want failed, a cause, and the measurements so far", res.Status, res.Error, res.TPM)
	}
	data, rerr := os.ReadFile(filepath.Join(out, ResultFile))
	if rerr != nil || !strings.Contains(string(data), `"status": "failed"`) {
		t.Errorf("result.json after the crash: %v\n%.300s", rerr, data)
	}
}
