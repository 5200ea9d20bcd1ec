package tpch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"tierbench/internal/engine"
	_ "tierbench/internal/engine/sqlite"
	"tierbench/internal/workload/tpch/dbgen"
	"tierbench/internal/workload/tpch/qgen"
)

func openSQLite(t *testing.T) engine.Engine {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Config{Name: "sqlite", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// schemaRunner opens SQLite with the TPC-H tables and their keys, empty.
func schemaRunner(t *testing.T) *runner {
	t.Helper()
	ctx := context.Background()
	r := newRunner(openSQLite(t), RunConfig{SF: 0.01})
	if err := r.createTables(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.forEachTable(ctx, r.addPrimaryKey); err != nil {
		t.Fatal(err)
	}
	return r
}

func count(t *testing.T, e engine.Engine, query string) int64 {
	t.Helper()
	var n int64
	if err := e.DB().QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func orderLine(k string) string {
	return k + "|370|O|172799.49|1996-01-02|5-LOW|Clerk#000000951|0|nstructions sleep furiously among |"
}

func itemLine(k, n string) string {
	return k + "|1552|93|" + n + "|17|24710.35|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22|DELIVER IN PERSON|TRUCK|egular courts above the|"
}

func lines(ls ...string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }

func TestRefreshFunctions(t *testing.T) {
	ctx := context.Background()
	r := schemaRunner(t)
	sess, err := r.eng.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()

	base := &updateSet{n: 1,
		orders:   lines(orderLine("1"), orderLine("2")),
		lineitem: lines(itemLine("1", "1"), itemLine("1", "2"), itemLine("2", "1")),
	}
	if _, n, err := timeRefresh(ctx, sess, r.d, base, rf1); err != nil || n != 2 {
		t.Fatalf("RF1 base: %d orders, %v", n, err)
	}
	// Update set 2 inserts orders 9 and 10 and deletes 1 and 2, as dbgen's sets do.
	set := &updateSet{n: 2,
		orders:   lines(orderLine("9"), orderLine("10")),
		lineitem: lines(itemLine("9", "1"), itemLine("10", "1"), itemLine("10", "2"), itemLine("10", "3")),
		deletes:  lines("1|", "2|"),
	}
	pair, err := refreshPair(ctx, sess, r.d, set)
	if err != nil {
		t.Fatal(err)
	}
	if pair.UpdateSet != 2 || pair.RF1 <= 0 || pair.RF2 <= 0 {
		t.Errorf("pair %+v", pair)
	}
	if n := count(t, r.eng, "SELECT COUNT(*) FROM orders"); n != 2 {
		t.Errorf("%d orders after RF1+RF2, want 2", n)
	}
	if n := count(t, r.eng, "SELECT COUNT(*) FROM lineitem WHERE l_orderkey IN (9, 10)"); n != 4 {
		t.Errorf("%d line items of the new orders, want 4", n)
	}
	if n := count(t, r.eng, "SELECT COUNT(*) FROM lineitem WHERE l_orderkey IN (1, 2)"); n != 0 {
		t.Errorf("%d line items of deleted orders left", n)
	}
	if n := count(t, r.eng, "SELECT COUNT(*) FROM orders WHERE o_totalprice = 172799.49 AND o_orderdate = '1996-01-02'"); n != 2 {
		t.Errorf("decimal or date stored wrongly: %d matching orders", n)
	}

	// An order that is already there fails RF1, and its transaction leaves nothing.
	dup := &updateSet{n: 3,
		orders:   lines(orderLine("11"), orderLine("9")),
		lineitem: lines(itemLine("11", "1"), itemLine("9", "7")),
	}
	if _, _, err := timeRefresh(ctx, sess, r.d, dup, rf1); err == nil || !strings.Contains(err.Error(), "order 9") {
		t.Fatalf("duplicate order: err %v", err)
	}
	if n := count(t, r.eng, "SELECT COUNT(*) FROM lineitem WHERE l_orderkey = 9"); n != 1 {
		t.Errorf("failed transaction left line items: %d of order 9, want 1", n)
	}
	// The session is usable after the rollback.
	if err := sess.Exec(ctx, "DELETE FROM orders WHERE o_orderkey = 11"); err != nil {
		t.Fatal(err)
	}

	orphan := &updateSet{n: 4, orders: lines(orderLine("12")), lineitem: lines(itemLine("13", "1"))}
	if _, _, err := timeRefresh(ctx, sess, r.d, orphan, rf1); err == nil || !strings.Contains(err.Error(), "no order row") {
		t.Errorf("line items without an order: err %v", err)
	}
}

func TestUpdateSetState(t *testing.T) {
	ctx := context.Background()
	e := openSQLite(t)
	st := newState(e)
	if st.exists(ctx) {
		t.Fatal("state table in a new database")
	}
	if n, err := st.nextUpdateSet(ctx); err != nil || n != 1 {
		t.Fatalf("next update set of a new database: %d, %v", n, err)
	}
	for _, tc := range []struct{ count, wantFirst int }{{1, 1}, {2, 2}, {3, 4}} {
		first, err := st.reserveUpdateSets(ctx, tc.count)
		if err != nil || first != tc.wantFirst {
			t.Fatalf("reserve %d: first %d, %v; want %d", tc.count, first, err, tc.wantFirst)
		}
	}
	if n, err := st.nextUpdateSet(ctx); err != nil || n != 7 {
		t.Fatalf("next update set: %d, %v; want 7", n, err)
	}
	if err := st.set(ctx, stateNextUpdateSet, "seven"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.nextUpdateSet(ctx); err == nil {
		t.Error("a non-number accepted as the next update set")
	}
}

func TestPrepareLoadLeavesForeignTables(t *testing.T) {
	ctx := context.Background()
	e := openSQLite(t)
	if _, err := e.DB().Exec("CREATE TABLE orders (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	r := newRunner(e, RunConfig{SF: 0.01})
	if err := r.prepareLoad(ctx); err == nil || !strings.Contains(err.Error(), `"orders"`) {
		t.Fatalf("prepareLoad on someone else's orders table: %v", err)
	}
	// Once tierbench owns the database, an earlier load is dropped.
	if err := r.state.create(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.prepareLoad(ctx); err != nil {
		t.Fatal(err)
	}
	if tableExists(ctx, e.DB(), "orders") {
		t.Error("the earlier load's orders table is still there")
	}
}

const longSQL = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c"

func TestRunQuery(t *testing.T) {
	ctx := context.Background()
	e := openSQLite(t)
	sess, err := openQuerySession(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()

	q := qgen.Query{Number: 15, Setup: []string{"CREATE VIEW v0 AS SELECT 1 AS a"}, SQL: "SELECT a FROM v0", Teardown: []string{"DROP VIEW v0"}}
	out, err := runQuery(ctx, sess, q, time.Minute)
	if err != nil || out.timedOut || len(out.rows.Data) != 1 || out.rows.Data[0][0] != "1" || out.seconds <= 0 {
		t.Fatalf("runQuery: %+v, %v", out, err)
	}

	slow := qgen.Query{Number: 15, Setup: q.Setup, SQL: longSQL, Teardown: q.Teardown}
	start := time.Now()
	out, err = runQuery(ctx, sess, slow, 50*time.Millisecond)
	if err != nil || !out.timedOut {
		t.Fatalf("slow query: %+v, %v; want a timeout", out, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("timeout took %s", d)
	}
	if tableExists(ctx, e.DB(), "v0") {
		t.Error("the view is left after the timeout: teardown did not run")
	}
	// The view can be created again: the stream goes on.
	if _, err := runQuery(ctx, sess, q, time.Minute); err != nil {
		t.Fatalf("query after a timeout: %v", err)
	}

	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := runQuery(cctx, sess, slow, time.Minute); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("run context ended: err %v, want context.DeadlineExceeded", err)
	}
	if _, err := runQuery(ctx, sess, qgen.Query{Number: 3, SQL: "SELECT nope FROM nowhere"}, 0); err == nil || !strings.Contains(err.Error(), "Q3") {
		t.Errorf("broken query: %v", err)
	}
}

// TestQuerySessionRecover replaces a session whose connection was closed under it,
// as a driver may do when it cancels a statement.
func TestQuerySessionRecover(t *testing.T) {
	ctx := context.Background()
	qs, err := openQuerySession(ctx, openSQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer qs.Close()
	if err := qs.recover(ctx); err != nil || qs.reopened != 0 {
		t.Fatalf("healthy session: %v, reopened %d", err, qs.reopened)
	}
	qs.sess.Conn().Close()
	if err := qs.recover(ctx); err != nil || qs.reopened != 1 {
		t.Fatalf("closed session: %v, reopened %d", err, qs.reopened)
	}
	if _, err := qs.sess.Query(ctx, "SELECT 1"); err != nil {
		t.Fatalf("query on the new session: %v", err)
	}
}

// TestUpdateSetFiles checks that a set spilled to files reads back as the set
// generated in memory.
func TestUpdateSetFiles(t *testing.T) {
	ctx := context.Background()
	mem, err := generateUpdateSet(ctx, 0.01, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(mem.orders) == 0 || len(mem.lineitem) == 0 || len(mem.deletes) == 0 {
		t.Fatalf("empty update set: %d, %d, %d bytes", len(mem.orders), len(mem.lineitem), len(mem.deletes))
	}
	dir := t.TempDir()
	file, err := generateUpdateSetFiles(ctx, 0.01, 2, dir)
	if err != nil {
		t.Fatal(err)
	}
	o, l, err := file.rf1Rows()
	if err != nil {
		t.Fatal(err)
	}
	d, err := file.rf2Rows()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(o, mem.orders) || !bytes.Equal(l, mem.lineitem) || !bytes.Equal(d, mem.deletes) {
		t.Error("update set read from files differs from the one generated in memory")
	}
	sets, _, err := prepareUpdateSets(ctx, 0.01, 1, 2, dir)
	if err != nil || sets[0].files != nil {
		t.Fatalf("small sets: files %v, %v", sets[0].files, err)
	}
	if dbgen.UpdateSetBytes(500)*2 <= updateSetMemory {
		t.Fatal("the memory budget no longer sends 2 sets at SF 500 to files")
	}
	// Above the memory budget, prepareUpdateSets uses files and removes them after.
	defer func(m float64) { updateSetMemory = m }(updateSetMemory)
	updateSetMemory = 0
	sets, cleanup, err := prepareUpdateSets(ctx, 0.01, 2, 2, dir)
	if err != nil || len(sets) != 2 || sets[0].files == nil || sets[1].n != 3 {
		t.Fatalf("spilled sets: %+v, %v", sets, err)
	}
	if o, _, err := sets[0].rf1Rows(); err != nil || !bytes.Equal(o, mem.orders) {
		t.Errorf("spilled set 2 reads back wrong (%v)", err)
	}
	cleanup()
	if _, err := os.Stat(filepath.Dir(sets[0].files[0])); !os.IsNotExist(err) {
		t.Errorf("update set files left after cleanup: %v", err)
	}
}

// writersEngine is an engine whose dialect allows n writers.
type writersEngine struct {
	engine.Engine
	n int
}

func (e writersEngine) Dialect() *engine.Dialect {
	d := *e.Engine.Dialect()
	d.MaxWriters = e.n
	return &d
}

func TestLoadParallelism(t *testing.T) {
	e := openSQLite(t)
	procs := runtime.GOMAXPROCS(0)
	for _, tc := range []struct {
		name string
		eng  engine.Engine
		want int
	}{
		{"one writer (SQLite)", e, 1},
		{"no cap", writersEngine{e, 0}, procs},
		{"more writers than CPUs", writersEngine{e, procs + 5}, procs},
	} {
		if got := loadParallelism(tc.eng); got != tc.want {
			t.Errorf("%s: %d tables at a time, want %d", tc.name, got, tc.want)
		}
	}
	e.DB().SetMaxOpenConns(1)
	if got := loadParallelism(writersEngine{e, 0}); got != 1 {
		t.Errorf("pool capped at 1 connection: %d tables at a time", got)
	}
}
