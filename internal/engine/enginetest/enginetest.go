package enginetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/engine/blockio"
)

// Harness tells the suite how to drive one engine.
type Harness struct {
	// Open opens the engine under test; the suite closes it.
	Open func(t *testing.T) engine.Engine
	// LongSQL is a statement that runs far longer than the suite waits (30 s or forever).
	LongSQL string
	// RunningSQL, when set, returns one row with the number of server sessions still
	// running LongSQL; after a cancel the suite waits for it to reach 0.
	RunningSQL string
}

// RequireServer skips the test when what is missing (a server binary, a DSN) is
// absent, unless CI=true: there the test fails, because CI installs every server.
func RequireServer(t *testing.T, missing error) {
	t.Helper()
	if missing == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and the server is not available: %v", missing)
	}
	t.Skipf("server not available (set CI=true to make this a failure): %v", missing)
}

// ServerDir makes a directory a managed server running as another user (postgres,
// mysql) can reach; t.TempDir's parents are private to the test's user.
func ServerDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tierbench-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

const testRows = `1|12.50|1998-12-01|abc|
2|0.05|1992-01-02|with space|
3|-7.25|1995-06-17||
4|99999.99|2000-02-29|last|
`

var wantRows = [][]string{
	{"1", "12.50", "1998-12-01", "abc"},
	{"2", "0.05", "1992-01-02", "with space"},
	{"3", "-7.25", "1995-06-17", ""},
	{"4", "99999.99", "2000-02-29", "last"},
}

// Run runs the conformance suite against one engine.
func Run(t *testing.T, h Harness) {
	ctx := context.Background()
	e := h.Open(t)
	closed := false
	t.Cleanup(func() {
		if !closed {
			e.Close()
		}
	})
	d := e.Dialect()

	t.Run("Dialect", func(t *testing.T) {
		if d.Name == "" || d.Param == nil || d.Analyze == nil || d.Retryable == nil || d.DateLiteral == nil || d.AddDate == nil || d.Year == nil || d.Substring == nil {
			t.Fatalf("incomplete dialect %+v", d)
		}
		for _, k := range engine.ColumnKinds {
			if d.ColumnTypes[k] == "" {
				t.Errorf("no column type for %s", k)
			}
		}
		if d.Retryable(errors.New("connection reset by peer")) {
			t.Error("a lost connection is retryable")
		}
		if len(d.Analyze("t")) == 0 {
			t.Error("Analyze returns no statements")
		}
	})

	t.Run("ColumnTypes", func(t *testing.T) {
		// Every portable type the dialect maps is one the engine takes.
		var cols []string
		for i, k := range engine.ColumnKinds {
			cols = append(cols, fmt.Sprintf("c%d %s NOT NULL", i, d.ColumnType(k, 12, 2)))
		}
		q := "CREATE TABLE conformance_types (" + strings.Join(cols, ", ") + ")" + d.TableSuffix
		if _, err := e.DB().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if _, err := e.DB().ExecContext(ctx, "DROP TABLE conformance_types"); err != nil {
			t.Fatal(err)
		}
	})

	createTable := func(t *testing.T, name string) {
		t.Helper()
		q := fmt.Sprintf("CREATE TABLE %s (id INTEGER NOT NULL, amount %s, shipdate %s, note VARCHAR(25))%s",
			name, d.ColumnType("decimal", 15, 2), d.ColumnType("date"), d.TableSuffix)
		if _, err := e.DB().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	columns := []string{"id", "amount", "shipdate", "note"}

	t.Run("LoadAndRead", func(t *testing.T) {
		createTable(t, "conf_load")
		n, err := e.Load(ctx, "conf_load", columns, strings.NewReader(testRows))
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if n != int64(len(wantRows)) {
			t.Errorf("Load returned %d rows, want %d", n, len(wantRows))
		}
		for _, q := range d.Analyze("conf_load") {
			if _, err := e.DB().ExecContext(ctx, q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
		s := session(t, e)
		rows, err := s.Query(ctx, "SELECT id, amount, shipdate, note FROM conf_load ORDER BY id")
		if err != nil {
			t.Fatalf("Query: %v", err)
		}
		if got := strings.Join(rows.Columns, ","); got != "id,amount,shipdate,note" {
			t.Errorf("columns %s", got)
		}
		checkRows(t, rows.Data, wantRows)
	})

	t.Run("LoadMany", func(t *testing.T) {
		createTable(t, "conf_many")
		rowsWanted := 100_000
		if s := os.Getenv("TIERBENCH_LOAD_ROWS"); s != "" {
			rowsWanted, _ = strconv.Atoi(s)
		}
		var b strings.Builder
		var sum int64
		for i := 1; i <= rowsWanted; i++ {
			fmt.Fprintf(&b, "%d|%d.%02d|199%d-0%d-1%d|note number %d|\n", i, i%100000, i%100, i%10, 1+i%9, i%10, i)
			sum += int64(i)
		}
		start := time.Now()
		n, err := e.Load(ctx, "conf_many", columns, strings.NewReader(b.String()))
		elapsed := time.Since(start)
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		t.Logf("%s: loaded %d rows in %v: %.0f rows/s", d.Name, n, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds())
		if n != int64(rowsWanted) {
			t.Errorf("Load returned %d rows, want %d", n, rowsWanted)
		}
		rows, err := engineQuery(e, "SELECT COUNT(*), SUM(id) FROM conf_many")
		if err != nil {
			t.Fatal(err)
		}
		checkRows(t, rows.Data, [][]string{{strconv.Itoa(rowsWanted), strconv.FormatInt(sum, 10)}})
	})

	t.Run("LoadBadLine", func(t *testing.T) {
		createTable(t, "conf_bad")
		if _, err := e.Load(ctx, "conf_bad", columns, strings.NewReader("1|2.00|1998-12-01|x|\nnot a row|\n")); err == nil {
			t.Error("Load of a malformed line returned no error")
		}
	})

	t.Run("Session", func(t *testing.T) {
		createTable(t, "conf_sess")
		s := session(t, e)
		ins := fmt.Sprintf("INSERT INTO conf_sess (id, amount, shipdate, note) VALUES (%s, %s, %s, %s)",
			d.Param(1), d.Param(2), d.Param(3), d.Param(4))
		if err := s.Exec(ctx, ins, 7, "3.50", "1996-03-13", "seven"); err != nil {
			t.Fatalf("Exec: %v", err)
		}
		if err := s.Exec(ctx, "INSERT INTO conf_sess (id) VALUES (8)"); err != nil {
			t.Fatalf("Exec: %v", err)
		}
		rows, err := s.Query(ctx, "SELECT id, amount, shipdate, note FROM conf_sess WHERE id >= "+d.Param(1)+" ORDER BY id", 7)
		if err != nil {
			t.Fatalf("Query: %v", err)
		}
		checkRows(t, rows.Data, [][]string{{"7", "3.50", "1996-03-13", "seven"}, {"8", "NULL", "NULL", "NULL"}})
		if err := s.Exec(ctx, "SELECT no_such_column FROM conf_sess"); err == nil {
			t.Error("a bad statement returned no error")
		}
		if _, err := s.Query(ctx, "SELECT 1"); err != nil {
			t.Errorf("session unusable after an error: %v", err)
		}
	})

	t.Run("Transaction", func(t *testing.T) {
		createTable(t, "conf_tx")
		s := session(t, e)
		ins := fmt.Sprintf("INSERT INTO conf_tx (id, amount, shipdate, note) VALUES (%s, %s, %s, %s)",
			d.Param(1), d.Param(2), d.Param(3), d.Param(4))
		for _, commit := range []bool{false, true} {
			tx, err := s.Conn().BeginTx(ctx, nil)
			if err != nil {
				t.Fatalf("BeginTx: %v", err)
			}
			if _, err := tx.ExecContext(ctx, ins, 1, "1.25", "2000-01-01", "tx"); err != nil {
				t.Fatalf("insert in tx: %v", err)
			}
			var n int
			if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM conf_tx WHERE id = "+d.Param(1), 1).Scan(&n); err != nil || n != 1 {
				t.Fatalf("read in tx: n=%d err=%v", n, err)
			}
			if commit {
				err = tx.Commit()
			} else {
				err = tx.Rollback()
			}
			if err != nil {
				t.Fatalf("end tx: %v", err)
			}
		}
		rows, err := engineQuery(e, "SELECT id, amount, shipdate, note FROM conf_tx")
		if err != nil {
			t.Fatal(err)
		}
		checkRows(t, rows.Data, [][]string{{"1", "1.25", "2000-01-01", "tx"}})
	})

	t.Run("Cancel", func(t *testing.T) {
		s := session(t, e)
		qctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := s.Query(qctx, h.LongSQL)
		took := time.Since(start)
		if err == nil {
			t.Fatalf("%s returned no error under a 300 ms timeout", h.LongSQL)
		}
		t.Logf("cancelled after %v: %v", took.Round(time.Millisecond), err)
		// LongSQL runs 30 s or more: half of that is "cancelled", on any host
		if took > 15*time.Second {
			t.Errorf("cancel took %v", took)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Logf("note: error is not context.DeadlineExceeded: %v", err)
		}
		if h.RunningSQL != "" {
			deadline := time.Now().Add(20 * time.Second) // LongSQL would still run at 30 s
			for {
				rows, err := engineQuery(e, h.RunningSQL)
				if err != nil {
					t.Fatalf("%s: %v", h.RunningSQL, err)
				}
				if rows.Data[0][0] == "0" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the server still runs the cancelled statement: %v", rows.Data)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		rows, err := s.Query(ctx, "SELECT 42")
		if err != nil {
			t.Fatalf("session unusable after a cancel: %v", err)
		}
		checkRows(t, rows.Data, [][]string{{"42"}})
	})

	t.Run("IOBytes", func(t *testing.T) {
		c, ok := e.(engine.IOCounter)
		if !ok {
			t.Skipf("%s does not count its I/O", d.Name)
		}
		before, err := c.IOBytes(ctx)
		if err != nil {
			t.Fatalf("IOBytes: %v", err)
		}
		if before.Read < 0 || before.Written <= 0 || before.Source == "" {
			t.Fatalf("IOBytes = %+v: want counters >= 0, writes already made, a source", before)
		}
		// 4000 rows of 1000 bytes: the WAL or redo log holds each row once at least.
		const rows, width = 4000, 1000
		payload := int64(rows * width)
		if _, err := e.DB().ExecContext(ctx, "CREATE TABLE conf_io (id INTEGER NOT NULL, pad VARCHAR(1000))"); err != nil {
			t.Fatal(err)
		}
		pad := strings.Repeat("x", width)
		for i := 0; i < rows; i += 100 {
			var b strings.Builder
			b.WriteString("INSERT INTO conf_io VALUES ")
			for j := i; j < i+100; j++ {
				if j > i {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "(%d, '%s')", j, pad)
			}
			if _, err := e.DB().ExecContext(ctx, b.String()); err != nil {
				t.Fatal(err)
			}
		}
		// Counters are published with a delay (PostgreSQL: about a second).
		var after engine.IOBytes
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			if after, err = c.IOBytes(ctx); err != nil {
				t.Fatalf("IOBytes: %v", err)
			}
			if after.Written-before.Written >= payload || time.Now().After(deadline) {
				break
			}
		}
		written := after.Written - before.Written
		t.Logf("%d bytes inserted: %d bytes written, %d read (%s)", payload, written, after.Read-before.Read, after.Source)
		if written < payload || written > 10*payload {
			t.Errorf("inserting %d bytes of rows wrote %d bytes by the counters: want between 1 and 10 times as much", payload, written)
		}
		if after.Read < before.Read {
			t.Errorf("read counter went back from %d to %d", before.Read, after.Read)
		}
	})

	t.Run("Info", func(t *testing.T) {
		info, err := e.Info(ctx)
		if err != nil {
			t.Fatalf("Info: %v", err)
		}
		if info.Name == "" || info.Version == "" {
			t.Errorf("Info without name or version: %+v", info)
		}
		switch info.Mode {
		case engine.Embedded, engine.Managed, engine.External:
		default:
			t.Errorf("Info.Mode = %q", info.Mode)
		}
		t.Logf("%s %s (%s): %v", info.Name, info.Version, info.Mode, info.Settings)
	})

	t.Run("Close", func(t *testing.T) {
		srv, managed := e.(engine.Server)
		var pid int
		var dir string
		if managed {
			pid, dir = srv.ServerPID(), srv.DataDir()
			if pid <= 0 || dir == "" {
				t.Errorf("managed engine reports pid %d, dir %q", pid, dir)
			}
		}
		closed = true
		if err := e.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if !managed {
			return
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("server pid %d still exists after Close (kill 0: %v)", pid, err)
		}
		if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("server process group %d still has processes after Close (kill 0: %v)", pid, err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("instance dir %s still exists after Close (%v)", dir, err)
		}
	})
}

func session(t *testing.T, e engine.Engine) engine.Session {
	t.Helper()
	s, err := e.Session(context.Background())
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func engineQuery(e engine.Engine, q string) (*engine.Rows, error) {
	rows, err := e.DB().QueryContext(context.Background(), q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	return engine.ReadRows(rows)
}

// checkRows compares exactly, except that numbers with a fraction compare as numbers
// (SQLite's REAL prints 12.50 as 12.5).
func checkRows(t *testing.T, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows %v, want %d %v", len(got), got, len(want), want)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("row %d: got %v, want %v", i, got[i], want[i])
		}
		for j := range want[i] {
			if got[i][j] == want[i][j] {
				continue
			}
			if strings.Contains(want[i][j], ".") {
				g, err1 := strconv.ParseFloat(got[i][j], 64)
				w, err2 := strconv.ParseFloat(want[i][j], 64)
				if err1 == nil && err2 == nil && g == w {
					continue
				}
			}
			t.Errorf("row %d column %d: got %q, want %q", i, j, got[i][j], want[i][j])
		}
	}
}

// SessionCancel checks engine.Canceller on a session of each client-I/O mode (open
// opens the engine with that mode; the check closes it): a session gets a blockio
// connection exactly with ClientIOThread, its Cancel stops longSQL within seconds,
// whatever the statement then returns (a killed MariaDB SLEEP returns 1, PostgreSQL
// reports an error), and the session still answers afterwards. No blockio connection
// is left open at the end.
func SessionCancel(t *testing.T, open func(t *testing.T, io engine.ClientIO) engine.Engine, longSQL string) {
	for _, io := range []engine.ClientIO{engine.ClientIOThread, engine.ClientIOPoller} {
		t.Run(string(io), func(t *testing.T) {
			e := open(t, io)
			defer e.Close()
			before := blockio.Open()
			s, err := e.Session(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if wantThreads, got := io == engine.ClientIOThread, blockio.Open() > before; got != wantThreads {
				t.Errorf("--client-io %s: session on a blockio connection %v, want %v", io, got, wantThreads)
			}
			c, ok := s.(engine.Canceller)
			if !ok {
				t.Fatalf("the %s session does not implement engine.Canceller", e.Dialect().Name)
			}
			time.AfterFunc(300*time.Millisecond, c.Cancel)
			start := time.Now()
			_, err = s.Conn().ExecContext(context.Background(), longSQL)
			if took := time.Since(start); took > 10*time.Second {
				t.Fatalf("%s after Cancel: took %s (error %v); want it stopped within seconds", longSQL, took, err)
			}
			time.Sleep(200 * time.Millisecond) // a cancel request may arrive late (pgconn's warning)
			var one int
			if err := s.Conn().QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
				t.Fatalf("SELECT 1 after the cancel: %d, %v", one, err)
			}
		})
	}
	if n := blockio.Open(); n != 0 {
		t.Errorf("%d blockio connections open after every session and engine closed", n)
	}
}

// ConnectionLimit checks how a managed instance of the server engine name is sized
// for a run's sessions; limitSQL reads its connection limit as one value. For 150
// sessions, more than either server allows by default, the limit is 150 +
// engine.SpareConnections. With --set max_connections=20 the user's limit stands, and
// the session that no longer fits fails with an error that says to raise
// max_connections or run fewer users.
func ConnectionLimit(t *testing.T, name, limitSQL string) {
	open := func(t *testing.T, cfg engine.Config) engine.Engine {
		cfg.Name, cfg.Dir = name, ServerDir(t)
		e, err := engine.Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	limit := func(t *testing.T, e engine.Engine) string {
		t.Helper()
		rows, err := engineQuery(e, limitSQL)
		if err != nil || len(rows.Data) != 1 || len(rows.Data[0]) != 1 {
			t.Fatalf("%s: %v, %v", limitSQL, rows, err)
		}
		return rows.Data[0][0]
	}
	t.Run("sized", func(t *testing.T) {
		e := open(t, engine.Config{Sessions: 150})
		defer e.Close()
		if got, want := limit(t, e), fmt.Sprint(150+engine.SpareConnections); got != want {
			t.Errorf("max_connections %s for 150 sessions, want %s", got, want)
		}
	})
	t.Run("set", func(t *testing.T) {
		e := open(t, engine.Config{Sessions: 150, Settings: map[string]string{"max_connections": "20"}})
		defer e.Close()
		if got := limit(t, e); got != "20" {
			t.Errorf("max_connections %s, want the 20 the user set", got)
		}
		var err error
		for i := 0; i < 40 && err == nil; i++ {
			var s engine.Session
			if s, err = e.Session(context.Background()); err == nil {
				defer s.Close()
			}
		}
		if err == nil {
			t.Fatal("40 sessions opened on a server that allows 20")
		}
		if msg := err.Error(); !strings.Contains(msg, "raise its max_connections") || !strings.Contains(msg, "fewer users") {
			t.Errorf("refused session: %q does not say what to do", msg)
		}
	})
}

// ClosesOnServer checks that p.Close drops the statement on the server: countSQL,
// run on session s, counts the prepared statements the server holds, and must give
// one fewer after Close. Nothing else may prepare or drop statements on that server
// meanwhile.
func ClosesOnServer(t *testing.T, s engine.Session, p engine.Prepared, countSQL string) {
	t.Helper()
	count := func() int {
		t.Helper()
		var n int
		if err := s.Conn().QueryRowContext(context.Background(), countSQL).Scan(&n); err != nil {
			t.Fatalf("%s: %v", countSQL, err)
		}
		return n
	}
	before := count()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if after := count(); after != before-1 {
		t.Errorf("%d prepared statements before Close, %d after; want one fewer", before, after)
	}
}
