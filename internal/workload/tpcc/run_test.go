package tpcc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/workload/vuser"
)

// saveIn does with a run's result what the lifecycle's Checkpoint does: it writes it
// to dir/result.json atomically.
func saveIn(dir string) func(any) error {
	return func(res any) error { return metrics.WriteJSONFile(filepath.Join(dir, ResultFile), res) }
}

// runAndCheck runs users for a short window on a loaded W=1 database, then checks the
// result file and the twelve conditions.
func runAndCheck(t *testing.T, e engine.Engine, info *LoadInfo, users []int) *Result {
	t.Helper()
	out := t.TempDir()
	var lines bytes.Buffer
	res, err := Run(context.Background(), e, RunConfig{
		Plan: vuser.Plan{Users: users, Ramp: time.Second, Duration: 5 * time.Second, Interval: 2 * time.Second,
			Seed: 1, OutDir: out, Checkpoint: saveIn(out), Lines: &lines},
		Load: info.Constants,
	})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, lines.String())
	}
	t.Logf("%s, users %v:\n%s", e.Dialect().Name, users, lines.String())
	data, err := os.ReadFile(filepath.Join(out, ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"nopm", "tpm", "tps", "transactions", "definitions"} {
		if _, ok := back[k]; !ok {
			t.Errorf("result.json has no %q", k)
		}
	}
	if res.NOPM <= 0 || res.TPM < res.NOPM || res.Status != "ok" {
		t.Errorf("nopm %v tpm %v status %s", res.NOPM, res.TPM, res.Status)
	}
	for _, op := range TxnNames {
		r := res.Transactions[op]
		if r.Errors > 0 {
			t.Errorf("%s: %d errors", op, r.Errors)
		}
		if r.Count > 0 && (r.Latency.P50 <= 0 || r.Latency.P50 > r.Latency.P99 || r.Latency.P99 > r.Latency.Max) {
			t.Errorf("%s: inconsistent latencies %+v", op, r.Latency)
		}
	}
	// The process's CPU over the window, and the summary's line for it.
	if c := res.ClientCPU; c == nil || c.Seconds <= 0 || c.USPerTxn <= 0 || c.Cores <= 0 {
		t.Errorf("client_cpu %+v, want the process's CPU over the window", c)
	}
	var sum bytes.Buffer
	WriteSummary(&sum, res)
	who := "tierbench's own CPU: "
	if res.Engine.Mode == engine.Embedded {
		who = "process CPU (tierbench and the embedded engine): "
	}
	if !strings.Contains(sum.String(), who) {
		t.Errorf("summary lacks %q:\n%s", who, sum.String())
	}
	// The server's count of new orders over the window tracks the users' count. The
	// two windows are not the same: the server's is read by a query after each end of
	// the users' (Run), and each end leaves up to one order a user in flight on one
	// side only. On a loaded 2-core host a stall of a second or two (a checkpoint's
	// fsyncs, a descheduled backend) can fall in one window and not the other, which
	// moves one rate by a fifth or more of a 5 s window; a rate of the wrong window or
	// unit, or one counted twice or not at all, is off by half or more.
	var edges float64
	for _, l := range res.Levels {
		if l.NOPM == res.NOPM && l.Seconds > 0 { // the headline level
			edges = float64(2*l.Users) * 60 / l.Seconds
		}
	}
	if res.NOPMServer <= 0 || res.NOPMServer < res.NOPM*0.5-edges || res.NOPMServer > res.NOPM*1.5+edges {
		t.Errorf("nopm %v but the server counted %v: want within half of it, give or take %.0f (an order a user in flight at each end)", res.NOPM, res.NOPMServer, edges)
	}
	jl, err := os.ReadFile(filepath.Join(out, IntervalsFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(jl), "\n"); n < 3 {
		t.Errorf("%d interval lines, want at least 3", n)
	}
	checkAll(t, e)
	return res
}

func TestRunSQLite(t *testing.T) {
	e := openSQLite(t)
	info := loadW1(t, e)
	res := runAndCheck(t, e, info, []int{2})
	t.Logf("sqlite 2 users: nopm %.0f (server %.0f), tpm %.0f", res.NOPM, res.NOPMServer, res.TPM)
	readersPassWriter(t, e, info)
	unprepared(t, e, info)
	paymentFailsEveryTime(t, e, info) // last: it drops a table
}

// paymentFailsEveryTime: with its HISTORY table gone (as after a disk filled up),
// Payment fails every time while the other four types go on; the run is failed
// however many failures --max-error-share allows, says why first, and keeps what it
// measured. New-Order's rollbacks (clause 2.4.2.3) are completed transactions, not
// errors.
func paymentFailsEveryTime(t *testing.T, e engine.Engine, info *LoadInfo) {
	if _, err := e.DB().Exec("DROP TABLE history"); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), e, RunConfig{
		Plan: vuser.Plan{Users: []int{1}, Duration: 2 * time.Second, Interval: time.Second, Seed: 1, OutDir: t.TempDir(), MaxErrorShare: 1},
		Load: info.Constants,
	})
	var tm *vuser.TooManyErrorsError
	if !errors.As(err, &tm) || len(tm.Failed) != 1 || tm.Failed[0].Name != Payment {
		t.Fatalf("error %v, want payment named as failing every time", err)
	}
	pay, no := res.Transactions[Payment], res.Transactions[NewOrder]
	if res.Status != "failed" || pay.Errors == 0 || pay.Count != 0 || no.Count == 0 || no.Errors != 0 || res.NOPM <= 0 {
		t.Errorf("status %s, payment %+v, new_order %+v, nopm %v", res.Status, pay, no, res.NOPM)
	}
	if !strings.Contains(res.FirstErrors[Payment], "no such table: history") {
		t.Errorf("first error of payment: %q", res.FirstErrors[Payment])
	}
	var sum bytes.Buffer
	WriteSummary(&sum, res)
	if !strings.HasPrefix(sum.String(), "\nNOT OK: run failed: transaction type payment failed every time it ran") {
		t.Errorf("summary:\n%s", sum.String())
	}
}

// refusingEngine's sessions have prepared statements the server always refuses, as
// MariaDB does past max_prepared_stmt_count.
type refusingEngine struct{ engine.Engine }

type refusingSession struct{ engine.Session }

func (e refusingEngine) Session(ctx context.Context) (engine.Session, error) {
	s, err := e.Engine.Session(ctx)
	return refusingSession{s}, err
}

func (refusingSession) Prepare(context.Context, string) (engine.Prepared, error) {
	return nil, errors.New("Error 1461: Can't create more than max_prepared_stmt_count statements")
}

// unprepared: statements the session's Preparer refuses run through database/sql, and
// every transaction type still succeeds.
func unprepared(t *testing.T, e engine.Engine, info *LoadInfo) {
	k := runEachOnce(t, refusingEngine{e}, info)
	if k.prep == nil || len(k.stmts) < 10 {
		t.Fatalf("preparer %v, %d statement texts tried; want a preparer and at least 10", k.prep != nil, len(k.stmts))
	}
	for q, p := range k.stmts {
		if p != nil {
			t.Errorf("statement %.40q has a prepared statement the session refused", q)
		}
	}
}

// readersPassWriter: while another session holds SQLite's write lock, Order-Status and
// Stock-Level (read-only, begun with Dialect.BeginRead) run to the end, and Payment
// (begun with Dialect.Begin, BEGIN IMMEDIATE) waits for the lock.
func readersPassWriter(t *testing.T, e engine.Engine, info *LoadInfo) {
	ctx := context.Background()
	locker, err := e.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	if _, err := locker.Conn().ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	wl, err := NewTransactions(e, TransactionsConfig{Warehouses: 1, Seed: 3, Load: info.Constants})
	if err != nil {
		t.Fatal(err)
	}
	k, err := wl.NewWorker(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	for _, op := range []string{OrderStatus, StockLevel} {
		opCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		start := time.Now()
		r := k.Run(opCtx, op)
		cancel()
		if r.Err != nil || r.Queries < 3 {
			t.Errorf("%s beside a writer: %d statements, error %v; want it done", op, r.Queries, r.Err)
		}
		t.Logf("%s beside a writer: %d statements in %v", op, r.Queries, time.Since(start).Round(time.Microsecond))
	}
	// Payment waits for the lock, which the locker lets go after 300 ms.
	const hold = 300 * time.Millisecond
	start := time.Now()
	time.AfterFunc(hold, func() { locker.Conn().ExecContext(ctx, "ROLLBACK") })
	r := k.Run(ctx, Payment)
	took := time.Since(start)
	if r.Err != nil || took < hold {
		t.Errorf("Payment beside a writer: error %v after %v; want it to wait for the lock (%v), then succeed", r.Err, took, hold)
	}
	t.Logf("Payment beside a writer: done after %v", took.Round(time.Millisecond))
}
