package oltp

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/workload/vuser"
)

// errNoRow ends a transaction whose statement with into: found nothing.
var errNoRow = errors.New("found no row")

// worker is one virtual user. Everything a transaction needs is allocated once per
// user: prepared statements, argument slices and value slots; a transaction costs
// only what database/sql and the driver allocate.
type worker struct {
	wl   *Transactions
	s    engine.Session
	conn *sql.Conn
	r    *rand.Rand
	// Per transaction type, per statement: the session's own prepared statement
	// (engine.Preparer; nil where it has none) and its arguments, else the driver's
	// prepared statement (nil: run unprepared), its arguments and the row buffer.
	fast     [][]engine.Prepared
	fastArgs [][][]any
	stmts    [][]driver.Stmt
	args     [][][]driver.NamedValue
	dest     [][][]driver.Value
	// Per transaction type: parameters, then captured values.
	vals [][]any
	// The statement raw runs: set by exec; raw is k.runRaw, bound once so that a
	// statement allocates no closure.
	cur struct {
		ctx   context.Context
		i, j  int
		empty bool
	}
	raw func(any) error
	// next is the transaction type Next chose.
	next      int
	succeeded bool
	// stmtCtx gives statements their context: on a session that can cancel on the
	// server, one that never ends, with Cancel armed once on the run's context.
	stmtCtx *engine.StmtContext
	// waits is what the transaction waited for each of the application's gates.
	waits []time.Duration
}

func (k *worker) Next() vuser.Txn {
	cum := k.wl.cum
	u := k.r.Float64() * cum[len(cum)-1]
	i := 0
	for i < len(cum)-1 && u >= cum[i] {
		i++
	}
	k.next = i
	return vuser.Txn{Op: k.wl.names[i], Think: k.wl.cfg.Think}
}

func (k *worker) Close() error {
	// After one statement fails to close, the session is broken: the others go with it.
	closed := true
	for _, ps := range k.fast {
		for _, p := range ps {
			if p != nil && closed {
				closed = p.Close() == nil
			}
		}
	}
	return k.close(false)
}

// Discard implements vuser.Discarder: the session's own prepared statements, which
// live on the server only, go with its connection.
func (k *worker) Discard() error { return k.close(true) }

// close closes the driver's statements (in-process for SQLite) and the session,
// dropping its connection first when drop is set.
func (k *worker) close(drop bool) error {
	_ = k.conn.Raw(func(any) error {
		for _, ss := range k.stmts {
			for _, st := range ss {
				if st != nil {
					st.Close()
				}
			}
		}
		return nil
	})
	k.stmtCtx.Stop()
	if drop {
		vuser.DropConn(k.conn)
	}
	return k.s.Close()
}

// Run draws the transaction's parameters, then runs it, again after a conflict.
func (k *worker) Run(ctx context.Context, op string) vuser.Outcome {
	i := k.next
	if k.wl.names[i] != op {
		var ok bool
		if i, ok = k.wl.index[op]; !ok {
			return vuser.Outcome{Err: fmt.Errorf("mix: unknown transaction %q", op)}
		}
	}
	p := k.wl.plans[i]
	vals := k.vals[i]
	for j, g := range p.params {
		vals[j] = g.value(k.r)
	}
	if g := k.wl.gates; g != nil {
		clear(k.waits)
		if err := g.enter(ctx, g.txn[i], k.waits); err != nil {
			return vuser.Outcome{Err: err, Waits: k.waits}
		}
		defer g.leave(g.txn[i])
	}
	var rollback bool
	queries, retries, err := vuser.Retry(ctx, k.r, k.wl.e.Dialect().Retryable, func() (int, error) {
		n, rb, err := k.attempt(ctx, i, p)
		rollback = rb
		return n, err
	})
	res := vuser.Outcome{Queries: queries, Retries: retries, Waits: k.waits}
	switch {
	case err == nil:
		res.Rollback = rollback
		if !k.succeeded {
			k.succeeded = true
			k.wl.anyOK.Store(true)
		}
		return res
	case ctx.Err() != nil:
		res.Err = err
		return res
	}
	res.Err = fmt.Errorf("transaction %s, %w", op, err)
	res.Fatal = k.wl.hopeless() || !vuser.Alive(ctx, k.conn)
	if res.Fatal && !k.wl.anyOK.Load() {
		res.Err = fmt.Errorf("no transaction succeeded: %w", res.Err)
	}
	return res
}

// attempt runs transaction i once and returns the statements sent, whether it ended
// in a rollback the mix asked for, and the error. ctx is the run's: each statement
// asks stmtCtx for its own, so once the run has ended the next one fails at once
// (a Cancel between two statements finds nothing to stop on the server).
func (k *worker) attempt(ctx context.Context, i int, p *txnPlan) (int, bool, error) {
	if p.begin == "" {
		empty, err := k.step(ctx, i, 0)
		if err != nil {
			return 1, false, err
		}
		if empty {
			return 1, p.stmts[0].s.OnEmpty == EmptyRollback, k.emptyErr(p.stmts[0].s)
		}
		return 1, false, nil
	}
	if err := k.control(k.stmtCtx.For(ctx), p.begin); err != nil {
		return 1, false, fmt.Errorf("%s: %w", p.begin, err)
	}
	n := 1
	for j := range p.stmts {
		n++
		empty, err := k.step(ctx, i, j)
		if err == nil && empty {
			s := p.stmts[j].s
			if s.OnEmpty == EmptySkip {
				break
			}
			vuser.Rollback(ctx, k.conn)
			return n + 1, s.OnEmpty == EmptyRollback, k.emptyErr(s)
		}
		if err != nil {
			vuser.Rollback(ctx, k.conn)
			return n + 1, false, err
		}
	}
	n++
	if err := k.control(k.stmtCtx.For(ctx), "COMMIT"); err != nil {
		vuser.Rollback(ctx, k.conn)
		return n, false, fmt.Errorf("COMMIT: %w", err)
	}
	return n, false, nil
}

func (k *worker) emptyErr(s *Statement) error {
	if s.OnEmpty == EmptyError {
		return fmt.Errorf("statement %s: %w (on_empty: error)", s.Name, errNoRow)
	}
	return nil
}

// step runs statement j of transaction i inside the critical sections around it.
func (k *worker) step(ctx context.Context, i, j int) (bool, error) {
	g := k.wl.gates
	if g == nil || len(g.stmt[i][j]) == 0 {
		return k.exec(ctx, i, j)
	}
	if err := g.enter(ctx, g.stmt[i][j], k.waits); err != nil {
		return false, err
	}
	defer g.leave(g.stmt[i][j])
	return k.exec(ctx, i, j)
}

// exec runs statement j of transaction i on the driver's connection (sql.Conn.Raw)
// under the context stmtCtx gives for the run's ctx, so it still stops on the server
// when the run ends, while database/sql's Rows would add a goroutine and a context per
// query to watch it. empty reports a statement with into: that found no row.
func (k *worker) exec(ctx context.Context, i, j int) (empty bool, err error) {
	if p := k.fast[i][j]; p != nil {
		return k.execFast(k.stmtCtx.For(ctx), p, i, j)
	}
	k.cur.ctx, k.cur.i, k.cur.j, k.cur.empty = k.stmtCtx.For(ctx), i, j, false
	err = k.conn.Raw(k.raw)
	k.cur.ctx = nil
	if err != nil {
		return false, fmt.Errorf("statement %s: %w", k.wl.plans[i].stmts[j].s.Name, err)
	}
	return k.cur.empty, nil
}

// execFast runs statement j of transaction i as p, the session's own prepared
// statement; values it captures are kept in the server's text form, which p reads
// back as the parameter's type.
func (k *worker) execFast(ctx context.Context, p engine.Prepared, i, j int) (empty bool, err error) {
	sp := &k.wl.plans[i].stmts[j]
	args := k.fastArgs[i][j]
	vals := k.vals[i]
	for a, slot := range sp.args {
		args[a] = vals[slot]
	}
	first, found, err := p.Run(ctx, args)
	if err == nil && found && len(sp.into) > len(first) {
		err = fmt.Errorf("into: names %d values but the statement returns %d columns", len(sp.into), len(first))
	}
	if err != nil {
		return false, fmt.Errorf("statement %s: %w", sp.s.Name, err)
	}
	if found {
		for c, slot := range sp.into {
			if first[c] == nil {
				vals[slot] = nil
			} else {
				vals[slot] = string(first[c])
			}
		}
	}
	return len(sp.into) > 0 && !found, nil
}

// runRaw runs k.cur's statement on the driver connection dc.
func (k *worker) runRaw(dc any) error {
	ctx, i, j := k.cur.ctx, k.cur.i, k.cur.j
	sp := &k.wl.plans[i].stmts[j]
	st := k.stmts[i][j]
	args := k.args[i][j]
	vals := k.vals[i]
	for a, slot := range sp.args {
		args[a].Value = vals[slot]
	}
	if !sp.s.Query {
		var err error
		if st != nil {
			_, err = st.(driver.StmtExecContext).ExecContext(ctx, args)
		} else {
			_, err = dc.(driver.ExecerContext).ExecContext(ctx, sp.sql, args)
		}
		return err
	}
	var rows driver.Rows
	var err error
	if st != nil {
		rows, err = st.(driver.StmtQueryContext).QueryContext(ctx, args)
	} else {
		rows, err = dc.(driver.QueryerContext).QueryContext(ctx, sp.sql, args)
	}
	if err != nil {
		return err
	}
	dest := k.dest[i][j]
	if dest == nil {
		dest = make([]driver.Value, len(rows.Columns()))
		k.dest[i][j] = dest
	}
	found := false
	// Every row is read from the server; only the first one's captured columns are kept.
	for {
		err = rows.Next(dest)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			break
		}
		if !found {
			found = true
			if len(sp.into) > len(dest) {
				err = fmt.Errorf("into: names %d values but the statement returns %d columns", len(sp.into), len(dest))
				break
			}
			for c, slot := range sp.into {
				vals[slot] = own(dest[c])
			}
		}
	}
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	k.cur.empty = err == nil && len(sp.into) > 0 && !found
	return err
}

// own copies a value that may point into the driver's buffers.
func own(v driver.Value) any {
	if b, ok := v.([]byte); ok {
		return append([]byte(nil), b...)
	}
	return v
}

// control runs BEGIN or COMMIT on the driver connection, without database/sql's work
// per statement (ROLLBACK, off the hot path, is vuser.Rollback).
func (k *worker) control(ctx context.Context, q string) error {
	return k.conn.Raw(func(dc any) error {
		_, err := dc.(driver.ExecerContext).ExecContext(ctx, q, nil)
		return err
	})
}
