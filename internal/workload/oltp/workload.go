package oltp

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/workload/vuser"
)

// Hopeless bounds how long a run goes on while no transaction has succeeded: after
// hopelessAfter, or hopelessFailures failed transactions, the next failure stops it.
const (
	hopelessAfter    = 5 * time.Second
	hopelessFailures = 200
)

// TransactionsConfig configures the users.
type TransactionsConfig struct {
	// Seed makes the users' parameters reproducible (each user draws from its own stream).
	Seed int64
	// Think is the pause after each transaction (closed loop only).
	Think time.Duration
}

// Transactions runs a mix's transactions as the virtual users' vuser.Transactions.
type Transactions struct {
	e     engine.Engine
	m     *Mix
	cfg   TransactionsConfig
	plans []*txnPlan
	names []string
	index map[string]int
	// cum are the cumulative weights Next draws from.
	cum []float64
	// gates are the application's pool and critical sections (nil: none).
	gates *gates

	startOnce sync.Once
	started   time.Time
	anyOK     atomic.Bool
	failures  atomic.Int64
}

// txnPlan is a transaction made ready for one engine.
type txnPlan struct {
	t      *Txn
	params []generator
	// slots are the transaction's values: its parameters, then what statements capture.
	slots    int
	stmts    []stmtPlan
	begin    string // "" for a single statement, which runs without BEGIN and COMMIT
	readOnly bool
}

type stmtPlan struct {
	s    *Statement
	sql  string
	args []int // slot of each argument
	into []int // slot of each captured column
}

// NewTransactions checks that the mix's tables are loaded, reads the key ranges its
// parameters draw from, and prepares every statement once so that an error in a mix
// stops the run before it starts, naming the transaction and the statement.
func NewTransactions(ctx context.Context, e engine.Engine, m *Mix, cfg TransactionsConfig) (*Transactions, error) {
	w := &Transactions{e: e, m: m, cfg: cfg, index: map[string]int{}}
	db := e.DB()
	for _, t := range m.Tables {
		var one int
		err := db.QueryRowContext(ctx, "SELECT 1 FROM "+t.Name+" LIMIT 1").Scan(&one)
		switch {
		case errors.Is(err, sql.ErrNoRows) && t.RowsAt(m.Scale) > 0:
			return nil, fmt.Errorf("mix %s: table %s is empty: run `tierbench oltp load --mix %s` first", m.Name, t.Name, m.Name)
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("mix %s: no table %s here: run `tierbench oltp load --mix %s` first (%v)", m.Name, t.Name, m.Name, err)
		}
	}
	maxima := map[string]int64{}
	largest := func(table, column string) (int64, error) {
		if column == "" {
			column = m.Table(table).KeyColumn()
		}
		key := table + "." + column
		if v, ok := maxima[key]; ok {
			return v, nil
		}
		var v sql.NullInt64
		if err := db.QueryRowContext(ctx, "SELECT MAX("+column+") FROM "+table).Scan(&v); err != nil {
			return 0, fmt.Errorf("mix %s: largest %s: %w", m.Name, key, err)
		}
		maxima[key] = v.Int64
		return v.Int64, nil
	}
	counters := map[string]*atomic.Int64{}
	var counterErr error
	ev := env{seed: cfg.Seed, keys: largest, counter: func(s *ValueSpec) *atomic.Int64 {
		key := s.path // a sequence of its own
		start := s.Start - 1
		if s.Table != "" {
			key = s.Table + "." + s.Column // shared by every transaction inserting there
			top, err := largest(s.Table, s.Column)
			if err != nil && counterErr == nil {
				counterErr = err
			}
			start = max(top, s.Start-1)
		}
		c, ok := counters[key]
		if !ok {
			c = &atomic.Int64{}
			c.Store(start)
			counters[key] = c
		}
		return c
	}}
	var total float64
	for i, t := range m.Transactions {
		p, err := w.plan(t, ev)
		if err != nil {
			return nil, err
		}
		w.plans = append(w.plans, p)
		w.names = append(w.names, t.Name)
		w.index[t.Name] = i
		total += t.Weight
		w.cum = append(w.cum, total)
	}
	if counterErr != nil {
		return nil, counterErr
	}
	w.gates = newGates(m)
	if total <= 0 {
		return nil, fmt.Errorf("mix %s: every transaction weight is 0", m.Name)
	}
	if err := w.check(ctx); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *Transactions) plan(t *Txn, ev env) (*txnPlan, error) {
	p := &txnPlan{t: t, readOnly: t.ReadOnly()}
	slot := map[string]int{}
	for _, prm := range t.Params {
		g, err := newGenerator(prm.Value, ev)
		if err != nil {
			return nil, fmt.Errorf("mix %s: transaction %s: %w", w.m.Name, t.Name, err)
		}
		p.params = append(p.params, g)
		slot[prm.Name] = len(slot)
	}
	d := w.e.Dialect()
	for _, s := range t.Statements {
		text := s.SQL
		if o, ok := s.Dialects[d.Name]; ok {
			text = o
		}
		q, args, err := bindSQL(d, text)
		if err != nil {
			return nil, fmt.Errorf("mix %s: transaction %s, statement %s: %w", w.m.Name, t.Name, s.Name, err)
		}
		sp := stmtPlan{s: s, sql: q}
		for _, a := range args {
			i, ok := slot[a]
			if !ok {
				return nil, fmt.Errorf("mix %s: transaction %s, statement %s: unknown parameter :%s", w.m.Name, t.Name, s.Name, a)
			}
			sp.args = append(sp.args, i)
		}
		for _, name := range s.Into {
			slot[name] = len(slot)
			sp.into = append(sp.into, slot[name])
		}
		p.stmts = append(p.stmts, sp)
	}
	p.slots = len(slot)
	if len(p.stmts) > 1 {
		d := w.e.Dialect()
		p.begin = d.Begin
		if p.readOnly {
			p.begin = d.BeginRead
		}
		if p.begin == "" {
			return nil, fmt.Errorf("mix %s: transaction %s: the %s dialect says no BEGIN statement", w.m.Name, t.Name, d.Name)
		}
	}
	return p, nil
}

// check prepares every statement on one session.
func (w *Transactions) check(ctx context.Context) error {
	s, err := w.e.Session(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	for _, p := range w.plans {
		for _, sp := range p.stmts {
			st, err := s.Conn().PrepareContext(ctx, sp.sql)
			if err != nil {
				return fmt.Errorf("mix %s: transaction %s, statement %s: the engine refuses it: %w", w.m.Name, p.t.Name, sp.s.Name, err)
			}
			st.Close()
		}
	}
	return nil
}

// Ops are the transaction names.
func (w *Transactions) Ops() []string { return w.names }

// hopeless reports that nothing has worked for long enough to stop trying.
func (w *Transactions) hopeless() bool {
	n := w.failures.Add(1)
	return !w.anyOK.Load() && (n >= hopelessFailures || time.Since(w.started) >= hopelessAfter)
}

// NewWorker opens a session for user (0-based) and prepares the statements on it.
func (w *Transactions) NewWorker(ctx context.Context, user int) (vuser.Worker, error) {
	w.startOnce.Do(func() { w.started = time.Now() })
	s, err := w.e.Session(ctx)
	if err != nil {
		return nil, err
	}
	k := &worker{wl: w, s: s, conn: s.Conn(), r: newRNG(w.cfg.Seed, "user", user), stmtCtx: engine.NewStmtContext(s)}
	if w.gates != nil {
		k.waits = make([]time.Duration, len(w.gates.list))
	}
	k.raw = k.runRaw
	n := len(w.plans)
	k.fast, k.fastArgs = make([][]engine.Prepared, n), make([][][]any, n)
	k.stmts, k.args = make([][]driver.Stmt, n), make([][][]driver.NamedValue, n)
	k.dest, k.vals = make([][][]driver.Value, n), make([][]any, n)
	for i, p := range w.plans {
		k.fast[i], k.fastArgs[i] = make([]engine.Prepared, len(p.stmts)), make([][]any, len(p.stmts))
		k.stmts[i], k.args[i] = make([]driver.Stmt, len(p.stmts)), make([][]driver.NamedValue, len(p.stmts))
		k.dest[i], k.vals[i] = make([][]driver.Value, len(p.stmts)), make([]any, p.slots)
	}
	// The session's own statements are prepared outside conn.Raw, which holds the
	// connection: a session may need it through database/sql while it prepares
	// (MariaDB's, after a KILL QUERY that a cancelled prepare sent), and would wait for
	// itself for ever (a Ctrl-C during MariaDB logins hung tierbench that way).
	if own, ok := s.(engine.Preparer); ok {
		for i, p := range w.plans {
			for j, sp := range p.stmts {
				fp, err := own.Prepare(ctx, sp.sql)
				if err == nil {
					k.fast[i][j], k.fastArgs[i][j] = fp, make([]any, len(sp.args))
				} else if ctx.Err() != nil {
					k.Discard()
					return nil, ctx.Err()
				}
			}
		}
	}
	err = k.conn.Raw(func(dc any) error {
		prep, canPrepare := dc.(driver.ConnPrepareContext)
		for i, p := range w.plans {
			for j, sp := range p.stmts {
				if k.fast[i][j] != nil {
					continue
				}
				// A statement the server will not prepare again (MySQL caps prepared
				// statements per server) runs unprepared on this session.
				if canPrepare {
					if st, err := prep.PrepareContext(ctx, sp.sql); err == nil {
						k.stmts[i][j] = st
					} else if ctx.Err() != nil {
						return ctx.Err()
					}
				}
				k.args[i][j] = make([]driver.NamedValue, len(sp.args))
				for a := range k.args[i][j] {
					k.args[i][j][a].Ordinal = a + 1
				}
			}
		}
		return nil
	})
	if err != nil {
		k.Discard()
		return nil, err
	}
	return k, nil
}
