package tpch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/engine/servertest"
	"tierbench/internal/workload/tpch/dbgen"
)

// e2eSF is the scale factor of the end-to-end tests, and these its row counts.
const e2eSF = 0.01

var e2eRows = map[string]int64{
	"customer": 1500, "orders": 15000, "lineitem": 60175, "part": 2000,
	"partsupp": 8000, "supplier": 100, "nation": 25, "region": 5,
}

// testLog is a Log writer that sends whole lines to t.Log and calls hook on each.
type testLog struct {
	t    *testing.T
	mu   sync.Mutex
	buf  bytes.Buffer
	hook func(line string)
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	for {
		line, err := l.buf.ReadString('\n')
		if err != nil {
			l.buf.WriteString(line)
			return len(p), nil
		}
		l.t.Log(strings.TrimSpace(line))
		if l.hook != nil {
			l.hook(line)
		}
	}
}

// runE2E runs the whole procedure on the engine open returns, at SF 0.01 with two
// streams: a load, a second run on the loaded database, a run whose queries all
// time out, and the checks of what each run recorded and left in the database.
func runE2E(t *testing.T, open func(t *testing.T) engine.Engine) {
	ctx := context.Background()
	eng := open(t)
	out := t.TempDir()
	cfg := RunConfig{SF: e2eSF, Streams: 2, OutDir: out, Checkpoint: saveIn(out), QueryTimeout: 5 * time.Minute, Log: &testLog{t: t}}

	start := time.Now()
	res, err := Run(ctx, eng, cfg)
	if err != nil {
		t.Fatalf("run 1: %v", err)
	}
	t.Logf("run 1 (load, power, throughput) took %s: load %.2fs, Ts %.2fs", time.Since(start), res.Load.Total, res.Throughput.Seconds)

	// Load test.
	if !maps.Equal(res.Load.Rows, e2eRows) {
		t.Errorf("rows loaded %v, want %v", res.Load.Rows, e2eRows)
	}
	for name, want := range e2eRows {
		if got := count(t, eng, "SELECT COUNT(*) FROM "+name); got != want && name != "lineitem" {
			t.Errorf("%s holds %d rows, want %d", name, got, want)
		}
	}
	wantSteps := []string{stepCreateTables, stepLoadData, stepPrimaryKeys, stepIndexes, stepStatistics}
	if !slices.Equal(res.Load.Order, wantSteps) || len(res.Load.Steps) != len(wantSteps) || res.Load.Total <= 0 {
		t.Errorf("load steps %v %v total %g", res.Load.Order, res.Load.Steps, res.Load.Total)
	}
	if res.Seed < 101000000 || res.Seed > 1231235959 || res.Streams != 2 || res.SF != e2eSF {
		t.Errorf("seed %d streams %d SF %g", res.Seed, res.Streams, res.SF)
	}

	checkTests(t, res, 1)
	checkRefreshed(t, eng, []int{1, 2, 3})
	checkResultFile(t, out, res)

	// A second run on the loaded database continues with the next update sets.
	cfg.SkipLoad, cfg.Seed = true, 20261123
	res2, err := Run(ctx, eng, cfg)
	if err != nil {
		t.Fatalf("run 2 (skip load): %v", err)
	}
	if res2.Load == nil || !res2.Load.Skipped || res2.Seed != 20261123 {
		t.Errorf("run 2: load %+v seed %d", res2.Load, res2.Seed)
	}
	checkTests(t, res2, 4)
	checkRefreshed(t, eng, []int{1, 2, 3, 4, 5, 6})
	if n, err := newState(eng).nextUpdateSet(ctx); err != nil || n != 7 {
		t.Errorf("next update set after two runs: %d, %v; want 7", n, err)
	}

	// A 1 ms query timeout cancels queries; the run finishes and is not reportable.
	cfg.QueryTimeout = time.Millisecond
	res3, err := Run(ctx, eng, cfg)
	if err != nil {
		t.Fatalf("run 3 (1 ms timeout): %v", err)
	}
	if len(res3.Power.TimedOut) == 0 || len(res3.Throughput.TimedOut) == 0 {
		t.Errorf("1 ms timeout: power timed out %v, throughput timed out %v", res3.Power.TimedOut, res3.Throughput.TimedOut)
	}
	if len(res3.Power.Queries) != 22 || res3.Power.RF2 <= 0 {
		t.Errorf("1 ms timeout: the power test did not go on: %d queries, RF2 %g", len(res3.Power.Queries), res3.Power.RF2)
	}
	if res3.Reportable || !slices.ContainsFunc(res3.NotReportable, func(s string) bool { return strings.Contains(s, "timed out") }) {
		t.Errorf("1 ms timeout: reportable %v, reasons %q", res3.Reportable, res3.NotReportable)
	}
	checkRefreshed(t, eng, []int{1, 2, 3, 4, 5, 6, 7, 8, 9})

	// Mistakes found before measuring return no result and leave result.json alone.
	before, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.SF = 0.1
	if res, err := Run(ctx, eng, cfg); res != nil || err == nil || !strings.Contains(err.Error(), "SF 0.01") {
		t.Errorf("run at another SF on the loaded database: result %v, err %v", res != nil, err)
	}
	cfg.SF, cfg.SkipLoad = e2eSF, false
	if res, err := Run(ctx, openForeign(t, open), cfg); res != nil || err == nil || !strings.Contains(err.Error(), "tierbench did not create") {
		t.Errorf("load into a database with foreign TPC-H tables: result %v, err %v", res != nil, err)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "result.json")); !bytes.Equal(before, after) {
		t.Error("a run that stopped before measuring replaced result.json")
	}
}

// openForeign opens another database of the engine under test that holds a NATION
// table tierbench did not create.
func openForeign(t *testing.T, open func(t *testing.T) engine.Engine) engine.Engine {
	e := open(t)
	if _, err := e.DB().Exec("CREATE TABLE nation (n_nationkey INTEGER)"); err != nil {
		t.Fatal(err)
	}
	return e
}

// checkTests checks that the power and throughput tests recorded every interval
// and used the update sets from firstSet on.
func checkTests(t *testing.T, res *Result, firstSet int) {
	t.Helper()
	p := res.Power
	if p == nil {
		t.Fatal("no power test result")
	}
	if len(p.Queries) != 22 || p.RF1 <= 0 || p.RF2 <= 0 || p.UpdateSet != firstSet || len(p.TimedOut) != 0 {
		t.Errorf("power: %d queries, RF1 %g, RF2 %g, update set %d (want %d), timed out %v",
			len(p.Queries), p.RF1, p.RF2, p.UpdateSet, firstSet, p.TimedOut)
	}
	for q := 1; q <= 22; q++ {
		if p.Queries[queryKey(q)] <= 0 {
			t.Errorf("power: Q%d has no interval", q)
		}
	}
	tp := res.Throughput
	if tp == nil {
		t.Fatal("no throughput test result")
	}
	if len(tp.Streams) != res.Streams || len(tp.Refresh) != res.Streams || len(tp.TimedOut) != 0 {
		t.Fatalf("throughput: %d streams, %d refresh pairs, timed out %v; want %d", len(tp.Streams), len(tp.Refresh), tp.TimedOut, res.Streams)
	}
	for i, s := range tp.Streams {
		var sum float64
		for q := 1; q <= 22; q++ {
			v := s[queryKey(q)]
			if v <= 0 {
				t.Errorf("throughput stream %d: Q%d has no interval", i+1, q)
			}
			sum += v
		}
		// A stream runs its queries one after the other inside Ts.
		if sum > tp.Seconds {
			t.Errorf("throughput stream %d: queries add up to %gs, more than Ts %gs", i+1, sum, tp.Seconds)
		}
	}
	for i, pair := range tp.Refresh {
		if pair.UpdateSet != firstSet+1+i || pair.RF1 <= 0 || pair.RF2 <= 0 {
			t.Errorf("refresh pair %d: %+v, want update set %d", i, pair, firstSet+1+i)
		}
	}
	if res.Metrics == nil || res.Metrics.QphHAtSizeUnrounded <= 0 {
		t.Errorf("metrics %+v", res.Metrics)
	}
}

// checkRefreshed checks ORDERS and LINEITEM after RF1 and RF2 of the given update
// sets: every inserted order is there with its line items, every deleted one is
// gone with its line items, and the row counts are the loaded ones plus and minus
// exactly those rows.
func checkRefreshed(t *testing.T, eng engine.Engine, sets []int) {
	t.Helper()
	ctx := context.Background()
	var base bytes.Buffer
	if err := dbgen.Generate(ctx, dbgen.Options{SF: e2eSF}, map[string]io.Writer{"lineitem": &base}); err != nil {
		t.Fatal(err)
	}
	itemsOf := map[string]int64{} // base line items per order key
	sc := bufio.NewScanner(&base)
	for sc.Scan() {
		k, _, _ := strings.Cut(sc.Text(), "|")
		itemsOf[k]++
	}
	wantItems := e2eRows["lineitem"]
	for _, n := range sets {
		set, err := generateUpdateSet(ctx, e2eSF, n)
		if err != nil {
			t.Fatal(err)
		}
		inserted := int64(bytes.Count(set.lineitem, []byte("\n")))
		var deleted int64
		tblLines(set.deletes, func(line string) error {
			deleted += itemsOf[tblFields(line)[0]]
			return nil
		})
		// dbgen makes int(15000/10000)*10 = 10 orders a set at SF 0.01, not SF*1500.
		if got := bytes.Count(set.orders, []byte("\n")); got != bytes.Count(set.deletes, []byte("\n")) || got != 10 {
			t.Fatalf("update set %d inserts %d orders and deletes %d; want 10 and 10", n, got, bytes.Count(set.deletes, []byte("\n")))
		}
		wantItems += inserted - deleted
		firstNew := tblFields(string(set.orders[:bytes.IndexByte(set.orders, '\n')]))[0]
		firstDeleted := tblFields(string(set.deletes[:bytes.IndexByte(set.deletes, '\n')]))[0]
		if got := count(t, eng, "SELECT COUNT(*) FROM orders WHERE o_orderkey = "+firstNew); got != 1 {
			t.Errorf("update set %d: order %s not inserted", n, firstNew)
		}
		if got := count(t, eng, "SELECT COUNT(*) FROM lineitem WHERE l_orderkey = "+firstDeleted); got != 0 {
			t.Errorf("update set %d: line items of order %s not deleted", n, firstDeleted)
		}
	}
	if got := count(t, eng, "SELECT COUNT(*) FROM orders"); got != e2eRows["orders"] {
		t.Errorf("ORDERS holds %d rows after update sets %v, want %d", got, sets, e2eRows["orders"])
	}
	if got := count(t, eng, "SELECT COUNT(*) FROM lineitem"); got != wantItems {
		t.Errorf("LINEITEM holds %d rows after update sets %v, want %d", got, sets, wantItems)
	}
	if got := count(t, eng, "SELECT COUNT(*) FROM lineitem WHERE l_orderkey NOT IN (SELECT o_orderkey FROM orders)"); got != 0 {
		t.Errorf("%d line items without an order", got)
	}
}

// checkResultFile reads result.json back and compares it with the returned result.
func checkResultFile(t *testing.T, dir string, res *Result) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatalf("result.json: %v", err)
	}
	var got Result
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("result.json does not parse: %v", err)
	}
	if got.SF != res.SF || got.Seed != res.Seed || got.Power == nil || len(got.Power.Queries) != 22 ||
		got.Throughput == nil || len(got.Throughput.Streams) != res.Streams || got.Metrics == nil || got.Finished == "" {
		t.Errorf("result.json differs from the result: %s", b)
	}
}

func TestRunSQLite(t *testing.T) {
	runE2E(t, openSQLite)
}

func openManaged(name string) func(t *testing.T) engine.Engine {
	return func(t *testing.T) engine.Engine {
		return servertest.ByName(t, name).Open(t, engine.Config{BufferBytes: 128 << 20}, false)
	}
}

func TestRunPostgres(t *testing.T) {
	runE2E(t, openManaged("postgres"))
}

func TestRunMySQL(t *testing.T) {
	runE2E(t, openManaged("mysql"))
}

// TestRunValidateServersAgainstSQLite compares PostgreSQL's and MariaDB's answers
// with SQLite's (CHAR padding, DECIMAL against REAL and date rendering must all
// compare equal), with seeded parameters.
func TestRunValidateServersAgainstSQLite(t *testing.T) {
	for _, srv := range servertest.Servers {
		t.Run(srv.Name, func(t *testing.T) {
			e := srv.Open(t, engine.Config{BufferBytes: 128 << 20}, false)
			cfg := RunConfig{SF: e2eSF, Streams: 2, ValidateAgainst: openSQLite(t), Log: &testLog{t: t}}
			res, err := Run(context.Background(), e, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if v := res.Validation; v == nil || !v.Passed || v.Checked != 22 {
				t.Errorf("%s against sqlite: %+v", srv.Name, v)
			}
		})
	}
}
