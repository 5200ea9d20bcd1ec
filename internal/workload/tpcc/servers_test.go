package tpcc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/engine/servertest"
	"tierbench/internal/workload/vuser"
)

// TestManagedServers loads W=1, checks, runs 2 users for 5 s and checks again on
// managed PostgreSQL and MariaDB/MySQL, then interrupts a run in a lock wait and kills
// the server under one. CI=true turns a missing server into a failure.
func TestManagedServers(t *testing.T) {
	// lockWaits counts the sessions waiting for a lock.
	lockWaits := map[string]string{
		"postgres": "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
		"mysql":    "SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'",
	}
	for _, srv := range servertest.Servers {
		t.Run(srv.Name, func(t *testing.T) {
			t.Parallel()
			e := srv.Open(t, engine.Config{}, true)
			info := loadW1(t, e)
			checkCardinalities(t, e, info)
			checkLoadedData(t, e, 1, 42)
			checkAll(t, e)
			res := runAndCheck(t, e, info, []int{2})
			t.Logf("%s 2 users: nopm %.0f (server %.0f), tpm %.0f", srv.Name, res.NOPM, res.NOPMServer, res.TPM)
			ownStatements(t, e, info)
			interruptInLockWait(t, e, lockWaits[srv.Name])
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
	res, err := Run(context.Background(), e, RunConfig{Plan: vuser.Plan{Users: []int{2}, Duration: time.Minute, Interval: time.Second, OutDir: out, Checkpoint: saveIn(out)}})
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

// ownStatements runs each transaction type once on a new user and checks that its
// statements ran on the session's own prepared statements (engine.Preparer: pgconn on
// PostgreSQL, the binary protocol beneath go-sql-driver on MariaDB), one per text.
func ownStatements(t *testing.T, e engine.Engine, info *LoadInfo) {
	t.Helper()
	k := runEachOnce(t, e, info)
	own := 0
	for _, p := range k.stmts {
		if p != nil {
			own++
		}
	}
	if k.prep == nil || own < 10 || own != len(k.stmts) {
		t.Errorf("%d of %d statement texts on the session's own prepared statements (preparer %v), want all, at least 10",
			own, len(k.stmts), k.prep != nil)
	}
}

// runEachOnce runs each transaction type once on a new user, which it returns closed.
func runEachOnce(t *testing.T, e engine.Engine, info *LoadInfo) *worker {
	t.Helper()
	ctx := context.Background()
	wl, err := NewTransactions(e, TransactionsConfig{Warehouses: 1, Seed: 7, Load: info.Constants})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wl.NewWorker(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, op := range TxnNames {
		if res := w.Run(ctx, op); res.Err != nil {
			t.Fatalf("%s: %v", op, res.Err)
		}
	}
	return w.(*worker)
}
