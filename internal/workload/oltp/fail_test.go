package oltp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/workload/vuser"
)

// loadedTiny is the tiny mix with its transactions replaced by txns, loaded (seed 1)
// into a new SQLite database.
func loadedTiny(t *testing.T, txns string) (engine.Engine, *Mix) {
	t.Helper()
	src, err := os.ReadFile("testdata/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	s = s[:strings.Index(s, "transactions:")] + txns
	m, err := Parse("bad.yaml", []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	e := openSQLite(t)
	if _, err := Load(context.Background(), e, m, LoadConfig{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return e, m
}

// insertExisting inserts a row whose key kv already holds: with {dist: key, table: kv}
// for :id it fails every time.
const insertExisting = "INSERT INTO kv (id, grp, pos, v, price, day, tag, ref) VALUES (:id, 1, 1, 'x', 1, '2024-01-01', 'x', 1)"

func TestRunNeedsLoad(t *testing.T) {
	e := openSQLite(t)
	_, err := Run(context.Background(), e, mustOpen(t, "testdata/tiny.yaml"), RunConfig{Plan: vuser.Plan{Users: []int{1}, Duration: time.Second, OutDir: t.TempDir()}})
	if err == nil || !strings.Contains(err.Error(), "no table kv here: run `tierbench oltp load --mix tiny` first") {
		t.Fatalf("error = %v", err)
	}
}

func TestStatementTheEngineRefuses(t *testing.T) {
	e, m := loadedTiny(t, `transactions:
  - name: broken
    weight: 1
    statements:
      - name: no_column
        sql: SELECT nope FROM kv
`)
	_, err := Run(context.Background(), e, m, RunConfig{Plan: vuser.Plan{Users: []int{1}, Duration: time.Second, OutDir: t.TempDir()}})
	if err == nil || !strings.Contains(err.Error(), "transaction broken, statement no_column: the engine refuses it") || !strings.Contains(err.Error(), "no such column: nope") {
		t.Fatalf("error = %v", err)
	}
}

func TestEveryTransactionFails(t *testing.T) {
	e, m := loadedTiny(t, `transactions:
  - name: dup
    weight: 1
    params:
      id: {dist: key, table: kv}
    statements:
      - name: insert_existing
        sql: `+insertExisting+`
`)
	out := t.TempDir()
	start := time.Now()
	res, err := Run(context.Background(), e, m, RunConfig{Plan: vuser.Plan{Users: []int{2}, Duration: time.Minute, Interval: time.Second, OutDir: out, Checkpoint: saveIn(out)}})
	if err == nil || res == nil {
		t.Fatalf("a run where everything fails succeeded: %v", err)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("took %v to give up", took)
	}
	for _, want := range []string{"no transaction succeeded", "transaction dup, statement insert_existing", "UNIQUE constraint failed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if res.Status != "failed" || res.Transactions["dup"].Errors == 0 || !strings.Contains(res.FirstErrors["dup"], "UNIQUE") {
		t.Errorf("result: status %s errors %d first %q", res.Status, res.Transactions["dup"].Errors, res.FirstErrors["dup"])
	}
	data, _ := os.ReadFile(filepath.Join(out, ResultFile))
	if !strings.Contains(string(data), `"status": "failed"`) {
		t.Errorf("result.json: %.300s", data)
	}
}

func TestOneTransactionFails(t *testing.T) {
	e, m := loadedTiny(t, `transactions:
  - name: good
    weight: 1
    params:
      id: {dist: key, table: kv}
    statements:
      - name: read
        sql: SELECT v FROM kv WHERE id = :id
  - name: bad
    weight: 1
    params:
      id: {dist: key, table: kv}
    statements:
      - name: read
        sql: SELECT v FROM kv WHERE id = :id
      - name: insert_existing
        sql: `+insertExisting+`
  - name: lookup
    weight: 1
    params:
      id: {dist: uniform, min: 5000, max: 6000}
    statements:
      - name: missing
        sql: SELECT v FROM kv WHERE id = :id
        into: [v]
        on_empty: rollback
`)
	// Even if every failure were allowed, a type that fails every time leaves a TPS
	// that describes another mix: the window runs to its end, keeps what it measured,
	// and is not ok.
	out := t.TempDir()
	res, err := Run(context.Background(), e, m, RunConfig{Plan: vuser.Plan{Users: []int{2}, Duration: time.Second,
		Interval: time.Second, MaxErrorShare: 1, OutDir: out, Checkpoint: saveIn(out)}})
	var tooMany *vuser.TooManyErrorsError
	if !errors.As(err, &tooMany) || len(tooMany.Failed) != 1 || tooMany.Failed[0].Name != "bad" {
		t.Fatalf("error %v, want a TooManyErrorsError naming bad", err)
	}
	good, bad, lookup := res.Transactions["good"], res.Transactions["bad"], res.Transactions["lookup"]
	if good.Count == 0 || good.Errors != 0 || bad.Count != 0 || bad.Errors == 0 {
		t.Errorf("good %+v bad %+v", good, bad)
	}
	if res.Status != "failed" || res.TPS <= 0 || res.Levels[0].Status != "failed" || res.Levels[0].Seconds < 0.9 {
		t.Errorf("status %s, level %s over %v s, tps %v: want failed, with what the whole window measured", res.Status, res.Levels[0].Status, res.Levels[0].Seconds, res.TPS)
	}
	wantWhy := fmt.Sprintf("run failed: transaction type bad failed every time it ran (%d errors, the first: transaction bad, statement insert_existing: UNIQUE constraint failed: kv.id)", bad.Errors)
	if !strings.HasPrefix(res.Error, wantWhy) || strings.Contains(res.Error, "transactions failed (") {
		t.Errorf("error %q, want it to begin %q and not to speak of the share (all may fail)", res.Error, wantWhy)
	}
	var back Result
	if err := json.Unmarshal(mustReadFile(t, filepath.Join(out, ResultFile)), &back); err != nil {
		t.Fatal(err)
	}
	if back.Status != "failed" || back.Error != res.Error || back.MaxErrorShare != 1 || back.Transactions["good"].Count != good.Count {
		t.Errorf("result.json: status %q error %q max_error_share %v", back.Status, back.Error, back.MaxErrorShare)
	}
	var sum bytes.Buffer
	WriteSummary(&sum, res, m.TxnNames())
	if first := strings.SplitN(strings.TrimLeft(sum.String(), "\n"), "\n", 2)[0]; first != "NOT OK: "+res.Error {
		t.Errorf("the summary begins %q, want the status and why", first)
	}
	if lookup.Count == 0 || lookup.Rollbacks != lookup.Count || lookup.Errors != 0 {
		t.Errorf("on_empty: rollback: %+v", lookup)
	}
	if !strings.Contains(res.FirstErrors["bad"], "transaction bad, statement insert_existing: UNIQUE constraint failed") {
		t.Errorf("first error of bad: %q", res.FirstErrors["bad"])
	}
}

// TestFirstErrorsAgreeWithCounts: a transaction type that failed only during the
// ramp-up (its sequence starts on keys the table holds, then passes them) has no
// errors in the window, so the result names no first error for it; first errors and
// error counts come from the same window (after a killed MariaDB, a type used to list
// a first error while its error count was 0).
func TestFirstErrorsAgreeWithCounts(t *testing.T) {
	e, m := loadedTiny(t, `transactions:
  - name: get
    weight: 1
    params:
      id: {dist: key, table: kv}
    statements:
      - name: read
        sql: SELECT v FROM kv WHERE id = :id
  - name: ins
    weight: 1
    params:
      id: {dist: sequence, start: 951}
    statements:
      - name: insert
        sql: `+insertExisting+`
`)
	out := t.TempDir()
	res, err := Run(context.Background(), e, m, RunConfig{Plan: vuser.Plan{Users: []int{1}, Ramp: 2 * time.Second,
		Duration: time.Second, Interval: time.Second, OutDir: out}})
	if err != nil {
		t.Fatal(err)
	}
	// The 50 keys 951..1000 exist: the first 50 inserts failed, in the ramp.
	var rampErrors int64
	for _, line := range strings.Split(strings.TrimSpace(string(mustReadFile(t, filepath.Join(out, IntervalsFile)))), "\n") {
		var rec metrics.IntervalRecord
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Phase == "ramp" {
			rampErrors += rec.Ops["ins"].Errors
		}
	}
	if rampErrors != 50 {
		t.Fatalf("%d inserts failed in the ramp, want the 50 on existing keys", rampErrors)
	}
	ins := res.Transactions["ins"]
	if ins.Errors != 0 || ins.Count == 0 {
		t.Fatalf("ins in the window: %+v, want successes only", ins)
	}
	for _, op := range m.TxnNames() {
		if first, n := res.FirstErrors[op], res.Transactions[op].Errors; (first != "") != (n > 0) {
			t.Errorf("%s: first error %q with %d errors", op, first, n)
		}
	}
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
