package tpch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/progress"
	"tierbench/internal/workload/tpch/dbgen"
)

// Load test steps, in the order they run and are reported.
const (
	stepCreateTables = "create_tables"
	stepLoadData     = "load_data"
	stepPrimaryKeys  = "primary_keys"
	stepIndexes      = "foreign_key_indexes"
	stepStatistics   = "statistics"
)

// loadOrder loads the biggest tables first, so parallel loads finish close together.
var loadOrder = []string{"lineitem", "orders", "partsupp", "part", "customer", "supplier", "nation", "region"}

// loadParallelism is how many Load calls run at once: one per CPU, capped by the
// engine's writers (Dialect.MaxWriters: SQLite has one) and by a pool capped with
// sql.DB.SetMaxOpenConns.
func loadParallelism(eng engine.Engine) int {
	n := runtime.GOMAXPROCS(0)
	if w := eng.Dialect().MaxWriters; w > 0 {
		n = min(n, w)
	}
	if m := eng.DB().Stats().MaxOpenConnections; m > 0 {
		n = min(n, m)
	}
	return max(1, n)
}

// errLoadStopped is what the generator sees when the engine stops reading early.
var errLoadStopped = errors.New("engine stopped reading the generated rows")

// loadTest runs the load test (Clause 5.1.1.2, Clause 4.3): create the tables, stream
// the generated rows into the engine with no intermediate files, build the primary
// keys and foreign-key indexes, and collect optimizer statistics, each step timed.
// The caller prepares the database first (prepareLoad), untimed.
func (r *runner) loadTest(ctx context.Context) (*LoadResult, error) {
	res := &LoadResult{Steps: map[string]float64{}, Rows: map[string]int64{}, Writers: loadParallelism(r.eng)}
	start := time.Now()
	step := func(name string, fn func() error) error {
		t0 := time.Now()
		if err := fn(); err != nil {
			return fmt.Errorf("load test, %s: %w", name, err)
		}
		res.Steps[name] = time.Since(t0).Seconds()
		res.Order = append(res.Order, name)
		r.logf("load: %s %.2fs", name, res.Steps[name])
		return nil
	}
	steps := []struct {
		name string
		fn   func() error
	}{
		{stepCreateTables, func() error { return r.createTables(ctx) }},
		{stepLoadData, func() error { return r.loadData(ctx, res.Rows) }},
		{stepPrimaryKeys, func() error { return r.forEachTable(ctx, r.addPrimaryKey) }},
		{stepIndexes, func() error { return r.forEachTable(ctx, r.addIndexes) }},
		{stepStatistics, func() error { return r.analyze(ctx) }},
	}
	for _, s := range steps {
		if err := step(s.name, s.fn); err != nil {
			res.Total = time.Since(start).Seconds()
			return res, err
		}
	}
	res.Total = time.Since(start).Seconds()
	r.logf("load: total %.2fs", res.Total)
	return res, nil
}

// prepareLoad makes room for a new load. Tables of an earlier tierbench load (the
// state table says so) are dropped; TPC-H tables that tierbench did not create are
// left alone and the run stops, so a DSN pointing at real data is never clobbered.
func (r *runner) prepareLoad(ctx context.Context) error {
	db := r.eng.DB()
	if r.state.exists(ctx) {
		for _, t := range tables {
			if _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+t.name); err != nil {
				return fmt.Errorf("drop the earlier load's table %s: %w", t.name, err)
			}
		}
		// An unfinished load must not look loaded to a later SkipLoad run.
		if _, err := db.ExecContext(ctx, "DELETE FROM "+stateTable); err != nil {
			return fmt.Errorf("reset %s: %w", stateTable, err)
		}
		return nil
	}
	for _, t := range tables {
		if tableExists(ctx, db, t.name) {
			return fmt.Errorf("the database already has a table %q that tierbench did not create: "+
				"load into an empty database, or skip the load to run on the data that is there", t.name)
		}
	}
	return r.state.create(ctx)
}

func (r *runner) createTables(ctx context.Context) error {
	for _, t := range tables {
		if _, err := r.eng.DB().ExecContext(ctx, t.createSQL(r.d, r.cfg.SF)); err != nil {
			return fmt.Errorf("create table %s: %w", t.name, err)
		}
	}
	return nil
}

// loadData streams every table from the generator into the engine, as many tables
// at a time as the engine takes (loadParallelism). Each table has its own generator
// call: tables dbgen makes together (orders and lineitem) are then generated twice,
// which costs CPU but lets a one-writer engine load them one after the other without
// a pipe waiting on a reader that is not running.
func (r *runner) loadData(ctx context.Context, rows map[string]int64) error {
	par := loadParallelism(r.eng)
	workers := 0 // all CPUs for the one generator that runs at a time
	if par > 1 {
		workers = max(1, runtime.GOMAXPROCS(0)/par)
	}
	var expected int64
	for _, name := range loadOrder {
		expected += dbgen.RowCount(name, r.cfg.SF)
	}
	prog := progress.Start(r.cfg.Progress, "load", "rows", expected)
	defer prog.Finish()
	r.logf("load: %d tables at a time, %d rows expected", par, expected)

	var mu sync.Mutex
	return parallel(ctx, par, loadOrder, func(ctx context.Context, name string) error {
		t, _ := tableByName(name)
		t0 := time.Now()
		n, err := r.loadTable(ctx, t, workers, prog)
		if err != nil {
			return err
		}
		mu.Lock()
		rows[name] = n
		mu.Unlock()
		r.logf("load: %s %d rows %.2fs", name, n, time.Since(t0).Seconds())
		return nil
	})
}

// loadTable pipes one table from dbgen.Generate into Engine.Load.
func (r *runner) loadTable(ctx context.Context, t table, workers int, prog *progress.Bar) (int64, error) {
	pr, pw := io.Pipe()
	var generated atomic.Int64
	genErr := make(chan error, 1)
	go func() {
		out := progress.LineCounter{W: pw, Lines: &generated, Bar: prog}
		err := dbgen.Generate(ctx, dbgen.Options{SF: r.cfg.SF, Workers: workers}, map[string]io.Writer{t.name: out})
		pw.CloseWithError(err) // nil closes with io.EOF
		genErr <- err
	}()
	n, err := r.eng.Load(ctx, t.name, t.columnNames(), pr)
	pr.CloseWithError(errLoadStopped) // unblocks the generator if the engine stopped early
	gerr := <-genErr
	switch {
	case gerr != nil && !errors.Is(gerr, errLoadStopped):
		return n, fmt.Errorf("generate %s: %w", t.name, gerr)
	case err != nil:
		return n, fmt.Errorf("load %s: %w", t.name, err)
	case gerr != nil:
		return n, fmt.Errorf("load %s: %w after %d rows", t.name, gerr, n)
	case n != generated.Load():
		return n, fmt.Errorf("load %s: the engine reports %d rows loaded, the generator wrote %d", t.name, n, generated.Load())
	}
	return n, nil
}

// addPrimaryKey adds t's primary key (Clause 1.4.2.2). Where ALTER TABLE cannot add
// one (SQLite), a unique index on the same columns does the same job.
func (r *runner) addPrimaryKey(ctx context.Context, t table) error {
	db := r.eng.DB()
	_, err := db.ExecContext(ctx, t.primaryKeySQL())
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if _, err2 := db.ExecContext(ctx, t.uniqueKeySQL()); err2 != nil {
		return fmt.Errorf("primary key of %s: %w (as a unique index: %v)", t.name, err, err2)
	}
	return nil
}

func (r *runner) addIndexes(ctx context.Context, t table) error {
	for _, stmt := range t.indexSQL() {
		if _, err := r.eng.DB().ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}

// analyze collects optimizer statistics. Statements the dialect gives for several
// tables (SQLite's ANALYZE covers the whole database) run once.
func (r *runner) analyze(ctx context.Context) error {
	if r.d.Analyze == nil {
		return nil
	}
	seen := map[string]bool{}
	var stmts []string
	for _, name := range loadOrder {
		for _, stmt := range r.d.Analyze(name) {
			if !seen[stmt] {
				seen[stmt] = true
				stmts = append(stmts, stmt)
			}
		}
	}
	return parallel(ctx, loadParallelism(r.eng), stmts, func(ctx context.Context, stmt string) error {
		if _, err := r.eng.DB().ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
		return nil
	})
}

// forEachTable runs fn for every table, biggest first, as many at a time as loads.
func (r *runner) forEachTable(ctx context.Context, fn func(context.Context, table) error) error {
	return parallel(ctx, loadParallelism(r.eng), loadOrder, func(ctx context.Context, name string) error {
		t, _ := tableByName(name)
		return fn(ctx, t)
	})
}

// parallel runs fn for each item with at most n running at once; the first error
// cancels the others and is returned.
func parallel(ctx context.Context, n int, items []string, fn func(context.Context, string) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, max(1, n))
	var wg sync.WaitGroup
	for _, item := range items {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := fn(ctx, item); err != nil {
				cancel(err)
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}
