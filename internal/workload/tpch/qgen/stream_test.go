package qgen

import (
	"database/sql"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// openSQLite returns an in-memory SQLite database with the TPC-H schema.
func openSQLite(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1) // one connection, so every statement sees the same in-memory database
	t.Cleanup(func() { db.Close() })
	execScript(t, db, "testdata/schema_sqlite.sql")
	return db
}

// execScript runs the ';'-separated statements of a file, skipping '--' comment lines.
func execScript(t *testing.T, db *sql.DB, path string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(src), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			lines = append(lines, l)
		}
	}
	for _, stmt := range strings.Split(strings.Join(lines, "\n"), ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v\n%s", path, err, stmt)
		}
	}
}

// runQuery executes a query with its setup and teardown and returns the rows.
func runQuery(t *testing.T, db *sql.DB, q Query) [][]any {
	t.Helper()
	for _, s := range q.Setup {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("Q%d setup: %v\n%s", q.Number, err, s)
		}
	}
	rows, err := db.Query(q.SQL)
	if err != nil {
		t.Fatalf("Q%d: %v\n%s", q.Number, err, q.SQL)
	}
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("Q%d: %v", q.Number, err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("Q%d: %v\n%s", q.Number, err, q.SQL)
	}
	rows.Close()
	for _, s := range q.Teardown {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("Q%d teardown: %v\n%s", q.Number, err, s)
		}
	}
	return out
}

// TestStreamsRunOnSQLite executes every query of streams 0 and 1 (and the
// qualification set) against an empty TPC-H schema.
func TestStreamsRunOnSQLite(t *testing.T) {
	db := openSQLite(t)
	for _, tc := range []struct {
		name       string
		stream     int
		useDefault bool
	}{{"stream0", 0, false}, {"stream1", 1, false}, {"default", 0, true}} {
		t.Run(tc.name, func(t *testing.T) {
			qs, err := Stream("sqlite", 1, StreamSeed(1231235959, tc.stream), tc.stream, tc.useDefault)
			if err != nil {
				t.Fatal(err)
			}
			var order []int
			for _, q := range qs {
				order = append(order, q.Number)
				runQuery(t, db, q)
			}
			if !slices.Equal(order, Order(tc.stream)) {
				t.Errorf("query order %v, want %v", order, Order(tc.stream))
			}
		})
	}
}

// TestStreamShape checks, for every dialect, the things a driver relies on: the
// stream's order, the parameters substituted, Q15's per-stream view and the row
// limits of Q2, Q3, Q10, Q18 and Q21.
func TestStreamShape(t *testing.T) {
	limits := map[int]string{2: "limit 100", 3: "limit 10", 10: "limit 20", 18: "limit 100", 21: "limit 100"}
	for _, dialect := range Dialects() {
		for stream := range 3 {
			seed := StreamSeed(101000000, stream)
			qs, err := Stream(dialect, 1, seed, stream, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(qs) != QueryCount {
				t.Fatalf("%s stream %d: %d queries", dialect, stream, len(qs))
			}
			for i, q := range qs {
				if q.Number != Order(stream)[i] {
					t.Errorf("%s stream %d position %d: Q%d, want Q%d", dialect, stream, i, q.Number, Order(stream)[i])
				}
				p, _ := Params(1, seed, q.Number)
				text := strings.Join(append(q.Setup, q.SQL), "\n")
				for _, v := range p {
					if q.Number == 6 && dialect == "sqlite" && strings.HasPrefix(v, "0.0") && len(v) == 4 {
						continue // folded into the bounds
					}
					if !strings.Contains(text, v) {
						t.Errorf("%s Q%d lacks parameter %q:\n%s", dialect, q.Number, v, text)
					}
				}
				lim, want := limits[q.Number]
				if got := strings.HasSuffix(q.SQL, "\nlimit "+strings.TrimPrefix(lim, "limit ")); got != want {
					t.Errorf("%s Q%d: limit clause present=%v, want %v (%s)", dialect, q.Number, got, want, lim)
				}
				if strings.Contains(q.SQL, ":") && !strings.Contains(q.SQL, "'%") {
					t.Errorf("%s Q%d has an unsubstituted ':' marker:\n%s", dialect, q.Number, q.SQL)
				}
				view := "revenue" + string(rune('0'+stream))
				if q.Number == 15 {
					if len(q.Setup) != 1 || !strings.HasPrefix(q.Setup[0], "create view "+view+" ") ||
						len(q.Teardown) != 1 || q.Teardown[0] != "drop view "+view || !strings.Contains(q.SQL, view) {
						t.Errorf("%s Q15 stream %d view: %+v", dialect, stream, q)
					}
				} else if len(q.Setup)+len(q.Teardown) != 0 {
					t.Errorf("%s Q%d has setup/teardown", dialect, q.Number)
				}
			}
		}
	}
}

// TestStreamUsesSeedAsQgenDoes: like qgen -p s -r seed, the stream number picks
// the order and nothing else.
func TestStreamUsesSeedAsQgenDoes(t *testing.T) {
	a, err := Stream("postgres", 1, 777, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Stream("postgres", 1, 777, 41, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(a, b, func(x, y Query) bool { return x.SQL == y.SQL || x.Number == 15 }) {
		t.Error("streams 0 and 41 with the same seed differ")
	}
	c, err := Stream("postgres", 1, 778, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if slices.EqualFunc(a, c, func(x, y Query) bool { return x.SQL == y.SQL }) {
		t.Error("seeds 777 and 778 give the same stream")
	}
}

func TestStreamErrors(t *testing.T) {
	_, err := Stream("oracle", 1, 1, 0, false)
	if err == nil || !strings.Contains(err.Error(), `"oracle"`) || !strings.Contains(err.Error(), "mysql, postgres, sqlite") {
		t.Errorf("unknown dialect: %v", err)
	}
	if _, err := Stream("sqlite", 1, 1, -1, false); err == nil || !strings.Contains(err.Error(), "-1") {
		t.Errorf("negative stream: %v", err)
	}
	if _, err := Stream("sqlite", 0, 1, 0, false); err == nil {
		t.Error("SF 0 accepted")
	}
	if _, err := QueryText("sqlite", 23, nil, 0); err == nil || !strings.Contains(err.Error(), "23") || !strings.Contains(err.Error(), "1..22") {
		t.Errorf("QueryText(23): %v", err)
	}
	if _, err := QueryText("sqlite", 1, []string{"1", "2"}, 0); err == nil {
		t.Error("wrong parameter count accepted")
	}
}

// TestSQLiteSemantics runs queries on a few hand-made rows where a wrong
// translation to SQLite would change the answer: Q1's date arithmetic, Q6's
// discount bounds on REAL columns, Q7's year extraction and Q22's substring.
func TestSQLiteSemantics(t *testing.T) {
	db := openSQLite(t)
	for _, stmt := range []string{
		`insert into nation values (6, 'FRANCE', 3, 'x'), (7, 'GERMANY', 3, 'x')`,
		`insert into supplier values (1, 'Supplier#1', 'a', 6, '16-000', 1.0, 'x')`,
		`insert into customer values (1, 'Customer#1', 'a', 7, '13-111', 100.0, 'BUILDING', 'x'),
			(2, 'Customer#2', 'a', 7, '31-111', 50.0, 'BUILDING', 'x'),
			(3, 'Customer#3', 'a', 7, '13-222', 10.0, 'BUILDING', 'x')`,
		`insert into orders values (1, 1, 'F', 10.0, '1995-02-01', '1-URGENT', 'c', 0, 'x')`,
		// shipped exactly 90 days before 1998-12-01, discount 0.07 = 0.06 + 0.01
		`insert into lineitem values (1, 1, 1, 1, 10, 100.0, 0.07, 0.0, 'N', 'O', '1998-09-02', '1998-09-02', '1998-09-03', 'x', 'MAIL', 'x'),
			(1, 1, 1, 2, 10, 100.0, 0.05, 0.0, 'N', 'O', '1994-06-30', '1994-07-01', '1994-07-02', 'x', 'MAIL', 'x'),
			(1, 1, 1, 3, 10, 100.0, 0.07, 0.0, 'N', 'O', '1995-06-01', '1995-07-01', '1995-07-02', 'x', 'MAIL', 'x')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	one := func(q int, params []string) [][]any {
		t.Helper()
		query, err := QueryText("sqlite", q, params, 0)
		if err != nil {
			t.Fatal(err)
		}
		return runQuery(t, db, query)
	}
	// All three lines are on or before 1998-12-01 - 90 days; with 91 days the
	// one shipped on 1998-09-02 drops out.
	if rows := one(1, []string{"90"}); len(rows) != 1 || rows[0][9] != int64(3) {
		t.Errorf("Q1 DELTA 90: %v, want count_order 3", rows)
	}
	if rows := one(1, []string{"91"}); len(rows) != 1 || rows[0][9] != int64(2) {
		t.Errorf("Q1 DELTA 91: %v, want count_order 2", rows)
	}
	// DISCOUNT .06 selects 0.05..0.07 inclusive; in 1994 only line 2 (0.05) ships,
	// in 1995 only line 3 (0.07, the upper bound).
	revenue := func(rows [][]any) float64 {
		if len(rows) != 1 {
			return -1
		}
		v, _ := rows[0][0].(float64)
		return math.Round(v*100) / 100
	}
	if got := revenue(one(6, []string{"1994-01-01", ".06", "24"})); got != 5 {
		t.Errorf("Q6 1994, .06: revenue %v, want 5 (100 * 0.05)", got)
	}
	if got := revenue(one(6, []string{"1995-01-01", "0.06", "24"})); got != 7 {
		t.Errorf("Q6 1995, 0.06: revenue %v, want 7 (discount 0.07 is the upper bound)", got)
	}
	if rows := one(7, []string{"FRANCE", "GERMANY"}); len(rows) != 1 || rows[0][2] != int64(1995) {
		t.Errorf("Q7: %v, want one row for 1995", rows)
	}
	// Codes 13 and 31: the average positive balance is 160/3; only customer 1
	// (100) is above it, and it has an order.
	if rows := one(22, []string{"13", "31", "23", "29", "30", "18", "17"}); len(rows) != 0 {
		t.Errorf("Q22: %v, want no rows", rows)
	}
	if _, err := db.Exec(`delete from orders`); err != nil {
		t.Fatal(err)
	}
	rows := one(22, []string{"13", "10", "11", "12", "14", "15", "16"})
	if len(rows) != 1 || rows[0][0] != "13" || rows[0][1] != int64(1) {
		t.Errorf("Q22 without orders: %v, want code 13 with one customer", rows)
	}
}
