package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"tierbench/internal/engine/enginetest"
	"tierbench/internal/engine/servertest"
	"tierbench/internal/metrics"
	"tierbench/internal/study"
)

// TestStudyCauseOfADeadServer: when the managed database server dies during a cell's
// run (kill -9 of the postmaster, of mariadbd), the cause the study records for the
// run and the run's result.json name the server and how it died, first: not the
// transactions that failed because it had gone.
func TestStudyCauseOfADeadServer(t *testing.T) {
	// An argument only the server's own command line has (not initdb's, not a
	// backend's "postgres: user db ...", not mariadb-install-db's).
	serverArg := map[string]string{"postgres": "listen_addresses=", "mysql": "--skip-networking"}
	program := map[string][]string{"postgres": {"postgres"}, "mysql": {"mariadbd", "mysqld"}}
	for _, srv := range servertest.Servers {
		t.Run(srv.Name, func(t *testing.T) {
			enginetest.RequireServer(t, srv.Installed())
			asTierbenchChild(t)
			dir := enginetest.ServerDir(t)
			file, out := filepath.Join(dir, "dead.yaml"), filepath.Join(dir, "out")
			src := fmt.Sprintf("name: dead\nworkload: oltp\nparams: {engine: %s, mix: bbs, scale: 0.001, ramp: 0s, duration: 20s}\nfactors:\n  users: [2]\n", srv.Name)
			if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			cell := study.RunDir(out, "users=2", 1)
			killed := make(chan int, 1)
			go func() {
				defer close(killed)
				log := filepath.Join(cell, study.StdoutFile)
				for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					if b, _ := os.ReadFile(log); !bytes.Contains(b, []byte("$ tierbench oltp run")) {
						continue
					}
					// The run's intervals begin once its users are logged in.
					if b, _ := os.ReadFile(filepath.Join(cell, "intervals.jsonl")); len(b) == 0 {
						continue
					}
					if pid := descendant(serverArg[srv.Name]); pid > 0 {
						if syscall.Kill(pid, syscall.SIGKILL) == nil {
							killed <- pid
						}
						return
					}
				}
			}()
			_, err := runStudyCLI(context.Background(), "study", "run", file, "--out", out)
			pid, ok := <-killed
			if !ok {
				t.Fatalf("the run's server was never found to kill (%v)", err)
			}
			if err == nil {
				t.Error("a study whose server died succeeded")
			}
			var want string
			for _, p := range program[srv.Name] {
				w := fmt.Sprintf("the database server %s (pid %d) died during the run (killed by SIGKILL): its sessions failed from then on", p, pid)
				r, rerr := metrics.ReadJSONFile[study.RunRecord](filepath.Join(cell, study.RunFile))
				if rerr != nil {
					t.Fatalf("cell.json: %v", rerr)
				}
				if strings.HasPrefix(r.Error, "run: "+w) {
					want = w
					if r.Status != "failed" {
						t.Errorf("status %s", r.Status)
					}
				}
			}
			if want == "" {
				r, _ := metrics.ReadJSONFile[study.RunRecord](filepath.Join(cell, study.RunFile))
				t.Fatalf("cell.json records %q, want it to begin with the death of pid %d", r.Error, pid)
			}
			type statusOnly struct {
				Status string `json:"status"`
				Error  string `json:"error"`
			}
			res, err := metrics.ReadJSONFile[statusOnly](filepath.Join(cell, "result.json"))
			if err != nil {
				t.Fatalf("result.json: %v", err)
			}
			if res.Status != "failed" || !strings.HasPrefix(res.Error, want) {
				t.Errorf("result.json: %s %q, want it to begin %q", res.Status, res.Error, want)
			}
		})
	}
}
