package tpch

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"os"
	"sync/atomic"
	"testing"

	"tierbench/internal/engine"
	"tierbench/internal/workload/tpch/qgen"
)

// deafConnector opens connections that run every statement and never look at its
// context, as a driver may do with a statement that is quick to finish: only the
// caller's own checks can then stop a loop of statements. It counts the statements.
type deafConnector struct{ execs *atomic.Int64 }

func (c deafConnector) Connect(context.Context) (driver.Conn, error) { return deafConn(c), nil }
func (c deafConnector) Driver() driver.Driver                        { return nil }

type deafConn struct{ execs *atomic.Int64 }

func (c deafConn) Prepare(string) (driver.Stmt, error) { return deafStmt(c), nil }
func (c deafConn) PrepareContext(context.Context, string) (driver.Stmt, error) {
	return deafStmt(c), nil
}
func (c deafConn) Close() error              { return nil }
func (c deafConn) Begin() (driver.Tx, error) { return nil, errors.New("deafConn: no Tx") }
func (c deafConn) ExecContext(context.Context, string, []driver.NamedValue) (driver.Result, error) {
	c.execs.Add(1)
	return driver.RowsAffected(1), nil
}

type deafStmt struct{ execs *atomic.Int64 }

func (s deafStmt) Close() error  { return nil }
func (s deafStmt) NumInput() int { return -1 }
func (s deafStmt) Exec([]driver.Value) (driver.Result, error) {
	s.execs.Add(1)
	return driver.RowsAffected(1), nil
}
func (s deafStmt) ExecContext(context.Context, []driver.NamedValue) (driver.Result, error) {
	s.execs.Add(1)
	return driver.RowsAffected(1), nil
}
func (s deafStmt) Query([]driver.Value) (driver.Rows, error) {
	return nil, errors.New("deafStmt: no rows")
}

// deafSession is an engine.Session that runs every statement regardless of ctx.
type deafSession struct{ calls int }

func (s *deafSession) Conn() *sql.Conn { return nil }
func (s *deafSession) Exec(context.Context, string, ...any) error {
	s.calls++
	return nil
}
func (s *deafSession) Query(context.Context, string, ...any) (*engine.Rows, error) {
	s.calls++
	return &engine.Rows{}, nil
}
func (s *deafSession) Close() error { return nil }

// TestCancelledContextStopsTheLoops: once ctx has ended (Ctrl-C, SIGTERM), every
// loop of a run stops before its next step and says why, whether or not the driver
// looks at the context.
func TestCancelledContextStopsTheLoops(t *testing.T) {
	set, err := generateUpdateSet(context.Background(), 0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	var execs atomic.Int64
	db := sql.OpenDB(deafConnector{&execs})
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	for _, tc := range []struct {
		name string
		run  func() error
		// ran reports the statements or sets the loop still ran after the cancel.
		ran func() int64
	}{
		{"RF1", func() error { _, err := rf1(cancelled, conn, testDialect, set); return err }, execs.Load},
		{"RF2", func() error { _, err := rf2(cancelled, conn, testDialect, set); return err }, execs.Load},
		{"a stream's query", func() error {
			sess := &deafSession{}
			q := qgen.Query{Number: 15, Setup: []string{"CREATE VIEW v"}, SQL: "SELECT 1", Teardown: []string{"DROP VIEW v"}}
			_, err := runQuery(cancelled, &querySession{sess: sess}, q, 0)
			if sess.calls > 0 {
				return errors.New("statements ran")
			}
			return err
		}, func() int64 { return 0 }},
		{"update sets in memory", func() error {
			sets, _, err := prepareUpdateSets(cancelled, 0.01, 1, 500, "")
			if sets != nil {
				return errors.New("sets returned")
			}
			return err
		}, func() int64 { return 0 }},
		{"update sets in files", func() error {
			defer func(m float64) { updateSetMemory = m }(updateSetMemory)
			updateSetMemory = 0
			dir := t.TempDir()
			_, _, err := prepareUpdateSets(cancelled, 0.01, 1, 500, dir)
			if ents, _ := os.ReadDir(dir); len(ents) > 0 {
				return errors.New("files left behind")
			}
			return err
		}, func() int64 { return 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			execs.Store(0)
			err := tc.run()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			if n := tc.ran(); n > 0 {
				t.Errorf("%d statements ran after the cancel", n)
			}
		})
	}
}

// TestRunCancelledBeforeItStarts: a run whose context has already ended returns
// at once, writes nothing and loads nothing.
func TestRunCancelledBeforeItStarts(t *testing.T) {
	eng := openSQLite(t)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, eng, RunConfig{SF: 0.01, Streams: 2, OutDir: out, Checkpoint: saveIn(out)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if res != nil && res.Load != nil && len(res.Load.Rows) > 0 {
		t.Errorf("a cancelled run loaded %v", res.Load.Rows)
	}
	if tableExists(context.Background(), eng.DB(), "lineitem") {
		t.Error("a cancelled run created the tables")
	}
}
