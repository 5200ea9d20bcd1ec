package tpcc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/workload/vuser"
)

// TransactionsConfig configures the TPC-C transactions.
type TransactionsConfig struct {
	Warehouses int
	// Seed makes the users' inputs reproducible (each user draws from its own stream).
	Seed int64
	Mix  Mix
	// Think applies the keying and think times of clause 5.2.5.7; without it users run
	// back to back, as HammerDB and go-tpc do by default.
	Think bool
	// Load are the constants C the population was generated with (clause 2.1.6.1).
	Load Constants
}

// Transactions is TPC-C as the virtual users' vuser.Transactions.
type Transactions struct {
	e   engine.Engine
	cfg TransactionsConfig
	run Constants
	sql *statements
}

// NewTransactions prepares the transactions for e.
func NewTransactions(e engine.Engine, cfg TransactionsConfig) (*Transactions, error) {
	if cfg.Warehouses < 1 {
		return nil, fmt.Errorf("tpcc: warehouses %d: give at least 1", cfg.Warehouses)
	}
	if cfg.Mix == (Mix{}) {
		cfg.Mix = MixDefault
	}
	return &Transactions{e: e, cfg: cfg, run: RunConstants(cfg.Load, cfg.Seed), sql: newStatements(e.Dialect())}, nil
}

// Ops are the five transaction types.
func (w *Transactions) Ops() []string { return TxnNames }

// NewWorker opens a session for user (0-based). Users are spread over warehouses
// first, then districts: user u has home warehouse u%W+1 and, for Stock-Level, the
// district (u/W)%10+1 (clause 2.8.1.1: a terminal's fixed district).
func (w *Transactions) NewWorker(ctx context.Context, user int) (vuser.Worker, error) {
	s, err := w.e.Session(ctx)
	if err != nil {
		return nil, err
	}
	r := newRNG(w.cfg.Seed, "user", user).Rand
	k := &worker{
		wl: w, s: s, stmtCtx: engine.NewStmtContext(s), r: r, deck: NewDeck(w.cfg.Mix, r),
		wID: user%w.cfg.Warehouses + 1, dID: (user/w.cfg.Warehouses)%DistrictsPerWH + 1,
	}
	if p, ok := s.(engine.Preparer); ok {
		k.prep, k.stmts = p, map[string]engine.Prepared{}
	}
	return k, nil
}

type worker struct {
	wl *Transactions
	s  engine.Session
	// stmtCtx gives BEGIN and every statement their context: on a session that can
	// cancel on the server, one that never ends, with Cancel armed once on the run's
	// context, so the driver watches no context per statement.
	stmtCtx  *engine.StmtContext
	r        *rand.Rand
	deck     *Deck
	wID, dID int
	// prep is the session's own prepared statements (engine.Preparer; nil without):
	// each statement text is prepared on first use and kept in stmts.
	prep  engine.Preparer
	stmts map[string]engine.Prepared
}

func (k *worker) Next() vuser.Txn {
	op := k.deck.Deal()
	t := vuser.Txn{Op: op}
	if k.wl.cfg.Think {
		p := pacing[op]
		t.Keying, t.Think = p.keying, thinkTime(k.r, p.think)
	}
	return t
}

func (k *worker) Close() error {
	k.stmtCtx.Stop()
	// After one statement fails to close, the session is broken: the others go with it.
	for _, p := range k.stmts {
		if p != nil && p.Close() != nil {
			break
		}
	}
	return k.s.Close()
}

// Discard implements vuser.Discarder: the session's prepared statements, which live on
// the server only, go with its connection.
func (k *worker) Discard() error {
	k.stmtCtx.Stop()
	vuser.DropConn(k.s.Conn())
	return k.s.Close()
}

// body is one transaction's work inside BEGIN ... COMMIT.
type body func(ctx context.Context, t *txn) error

// readOnly are the transactions that write nothing (clauses 2.6 and 2.8); they begin
// with Dialect.BeginRead, which on SQLite takes no write lock.
var readOnly = map[string]bool{OrderStatus: true, StockLevel: true}

// Run draws the transaction's input, then runs it, again after a conflict.
func (k *worker) Run(ctx context.Context, op string) vuser.Outcome {
	var b body
	switch op {
	case NewOrder:
		b = k.newOrder()
	case Payment:
		b = k.payment()
	case OrderStatus:
		b = k.orderStatus()
	case Delivery:
		b = k.delivery()
	case StockLevel:
		b = k.stockLevel()
	default:
		return vuser.Outcome{Err: fmt.Errorf("tpcc: unknown transaction %q", op)}
	}
	begin := k.wl.e.Dialect().Begin
	if readOnly[op] {
		begin = k.wl.e.Dialect().BeginRead
	}
	queries, retries, err := vuser.Retry(ctx, k.r, k.wl.e.Dialect().Retryable, func() (int, error) { return k.attempt(ctx, begin, b) })
	res := vuser.Outcome{Queries: queries, Retries: retries}
	switch {
	case err == nil:
		return res
	case errors.Is(err, errUnusedItem):
		res.Rollback = true
		return res
	case ctx.Err() != nil:
		// The run ended: the statement was cut short (on a Canceller session by
		// Cancel, after which the session is only fit to be closed), not failed.
		res.Err = err
		return res
	}
	res.Err = err
	res.Fatal = !vuser.Alive(ctx, k.s.Conn())
	return res
}

// attempt runs b in one transaction, opened with the statement begin, and returns
// the statements it sent. b gets the run's context; txn runs each statement under the
// context stmtCtx gives for it. BEGIN, COMMIT and ROLLBACK are plain statements on the
// session's connection, not a database/sql Tx: a Tx, and each Rows in it, starts a
// goroutine to watch the Tx's context (about 30 a New-Order), and their wake-ups cost
// the client more scheduler time than the statements' own work.
func (k *worker) attempt(ctx context.Context, begin string, b body) (int, error) {
	conn := k.s.Conn()
	if _, err := conn.ExecContext(k.stmtCtx.For(ctx), begin); err != nil {
		return 1, fmt.Errorf("%s: %w", begin, err)
	}
	t := &txn{k: k, n: 1}
	err := b(ctx, t)
	if err == nil {
		// Like a statement, COMMIT is not sent once the run ended.
		_, err = conn.ExecContext(k.stmtCtx.For(ctx), "COMMIT")
		if err != nil {
			err = fmt.Errorf("COMMIT: %w", err)
		}
	}
	if err != nil {
		vuser.Rollback(ctx, conn)
		return t.n + 1, err
	}
	return t.n + 1, nil
}

// txn counts the statements of one transaction. Each statement asks the worker's
// stmtCtx for its context, so one that starts after the run ended fails at once, even
// where the session's Cancel found no statement in flight. Statements run on the
// session's own prepared statements where it has them (PostgreSQL: pgconn beneath
// database/sql; MariaDB: the binary protocol beneath go-sql-driver; each costs the
// client a fraction of the driver's database/sql path), else through database/sql on
// the session's connection.
type txn struct {
	k *worker
	n int
}

// scanner is a row to scan: *sql.Row, or a textRow.
type scanner interface{ Scan(dest ...any) error }

// rowIter is *sql.Rows, or textRows.
type rowIter interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

func (t *txn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	t.n++
	ctx = t.k.stmtCtx.For(ctx)
	if p := t.prepared(ctx, q); p != nil {
		rows, err := p.Query(ctx, args)
		if err != nil {
			return 0, err
		}
		return rows.Affected, nil
	}
	res, err := t.k.s.Conn().ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t *txn) row(ctx context.Context, q string, args ...any) scanner {
	t.n++
	ctx = t.k.stmtCtx.For(ctx)
	if p := t.prepared(ctx, q); p != nil {
		rows, err := p.Query(ctx, args)
		switch {
		case err != nil:
			return textRow{err: err}
		case len(rows.Rows) == 0:
			return textRow{err: sql.ErrNoRows}
		}
		return textRow{vals: rows.Rows[0]}
	}
	return t.k.s.Conn().QueryRowContext(ctx, q, args...)
}

func (t *txn) query(ctx context.Context, q string, args ...any) (rowIter, error) {
	t.n++
	ctx = t.k.stmtCtx.For(ctx)
	if p := t.prepared(ctx, q); p != nil {
		rows, err := p.Query(ctx, args)
		if err != nil {
			return nil, err
		}
		return &textRows{rows: rows.Rows}, nil
	}
	return t.k.s.Conn().QueryContext(ctx, q, args...)
}

// prepared is the session's own prepared statement for q, prepared on first use; nil
// when the session has none or the server would not prepare q (MariaDB caps prepared
// statements per server, max_prepared_stmt_count): database/sql then runs q, and
// reports the error if q itself is at fault.
func (t *txn) prepared(ctx context.Context, q string) engine.Prepared {
	if t.k.prep == nil {
		return nil
	}
	p, ok := t.k.stmts[q]
	if !ok {
		var err error
		if p, err = t.k.prep.Prepare(ctx, q); err != nil {
			p = nil
		}
		t.k.stmts[q] = p
	}
	return p
}

// otherWarehouse picks a warehouse other than home, uniformly (clause 2.4.1.5).
func (k *worker) otherWarehouse() int {
	w := k.wl.cfg.Warehouses
	if w == 1 {
		return k.wID
	}
	o := 1 + k.r.IntN(w-1)
	if o >= k.wID {
		o++
	}
	return o
}

func (k *worker) uniform(lo, hi int) int { return lo + k.r.IntN(hi-lo+1) }

// customer picks a customer as Payment and Order-Status do (clauses 2.5.1.2, 2.6.1.2):
// 60% by last name, NURand(255, 0, 999), 40% by number, NURand(1023, 1, 3000).
func (k *worker) customer() (id int, last string) {
	if k.r.IntN(100) < 60 {
		return 0, LastName(NURand(k.r, 255, k.wl.run.CLast, 0, 999))
	}
	return NURand(k.r, 1023, k.wl.run.CID, 1, CustomersPerDistrict), ""
}

func now() string { return time.Now().UTC().Format(timeLayout) }
