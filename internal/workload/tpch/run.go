package tpch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/progress"
	"tierbench/internal/workload/tpch/dbgen"
	"tierbench/internal/workload/tpch/qgen"
)

// RunConfig is what a TPC-H run needs besides the engine.
type RunConfig struct {
	// SF is the scale factor.
	SF float64
	// Streams is S, the throughput test's query streams; 0 means the spec's minimum
	// for SF (MinStreams).
	Streams int
	// Seed is the substitution parameter seed (qgen -r) of the power test, stream
	// 0; query stream s of the throughput test uses Seed+s (Clause 2.1.3.3,
	// qgen.StreamSeed). 0 derives it from the end of the load as mmddhhmmss in UTC
	// (SeedFromTime), or, with SkipLoad, from the start of the tests. The seed
	// used is recorded in Result.Seed, so a run can be repeated with it.
	Seed int64
	// UseDefaultParams runs every stream with the qualification parameters (qgen -d).
	UseDefaultParams bool
	// Validate checks the answers against the TPC's qualification answers; it needs
	// SF 1 and UseDefaultParams.
	Validate bool
	// ValidateAgainst, when set, runs the same queries (its dialect's text, the
	// same parameters) on that engine and compares the answers. Its database is
	// loaded by the run unless it already holds an unrefreshed tierbench load of SF.
	ValidateAgainst engine.Engine
	// QueryTimeout cancels a query that runs longer; the run goes on and the result
	// is then not reportable. 0 means no limit.
	QueryTimeout time.Duration
	// OutDir is the run's output directory, where update sets too big for memory
	// are written (empty: the temporary directory).
	OutDir string
	// Checkpoint, if set, is handed the result after each test, so that a crash
	// keeps what finished (workload.Env.Checkpoint writes it); nil keeps nothing.
	Checkpoint func(result any) error
	// SkipLoad runs on a database an earlier run loaded. The refresh functions go
	// on with the update sets after the ones earlier runs used (tierbench_state).
	SkipLoad bool
	// Progress shows progress (a bar with ETA on a terminal); nil is quiet.
	Progress io.Writer
	// Log receives one line per step; nil is quiet.
	Log io.Writer

	// DatabaseDir is where an embedded or managed engine keeps its files ("" when
	// unknown or on an external server): Run checks that it has room for the load.
	DatabaseDir string
	// BufferBytes is the buffer the engine was given (engine.Config.BufferBytes), for
	// engines whose every session holds one (Dialect.Footprint.BufferPerSession).
	BufferBytes int64
	// IgnoreLimits runs even when the estimate of memory and disk exceeds what this
	// host has (capacity.Check).
	IgnoreLimits bool
	// Mark, if set, is told when each test starts and ends, by its window's label
	// (WindowLoad, WindowPower, WindowThroughput): the run lifecycle's monitors, energy
	// windows and verdict.
	Mark func(label string, start bool)
}

// The labels of the windows a run marks (RunConfig.Mark), one per test.
const (
	WindowLoad       = "load"
	WindowPower      = "power"
	WindowThroughput = "throughput"
)

// mark tells RunConfig.Mark that window label starts or ends.
func (r *runner) mark(label string, start bool) {
	if r.cfg.Mark != nil {
		r.cfg.Mark(label, start)
	}
}

// minStreams is the spec's minimum number of query streams by scale factor
// (Clause 5.3.4.1), largest scale factor first.
var minStreams = []struct {
	sf      float64
	streams int
}{
	{100000, 11}, {30000, 10}, {10000, 9}, {3000, 8}, {1000, 7},
	{300, 6}, {100, 5}, {30, 4}, {10, 3}, {1, 2},
}

// MinStreams returns the minimum S the spec requires at sf: the entry of the
// largest official scale factor not above sf; 2 below SF 1.
func MinStreams(sf float64) int {
	for _, m := range minStreams {
		if sf >= m.sf {
			return m.streams
		}
	}
	return 2
}

// SeedFromTime is the spec's default seed: t as mmddhhmmss (Clause 2.1.3.3), in UTC
// so the same instant gives the same seed on every machine.
func SeedFromTime(t time.Time) int64 {
	t = t.UTC()
	return int64(t.Month())*100_000_000 + int64(t.Day())*1_000_000 +
		int64(t.Hour())*10_000 + int64(t.Minute())*100 + int64(t.Second())
}

// qgenSeed is the seed qgen gets for stream s, for log lines.
func qgenSeed(seed int64, s int) int64 { return qgen.StreamSeed(seed, s) }

func (cfg RunConfig) check() error {
	if cfg.SF <= 0 {
		return fmt.Errorf("scale factor %g: it must be positive (1, 10, 30, ... are the official ones; 0.01 and 0.1 are fine for testing)", cfg.SF)
	}
	if cfg.Streams < 0 {
		return fmt.Errorf("%d streams: give a positive number, or 0 for the spec's minimum", cfg.Streams)
	}
	if cfg.Streams > MaxStreams {
		return fmt.Errorf("%d streams: a run takes at most %d (its power test uses update set 1, its throughput test sets 2..S+1, and a database has %d that refresh it)",
			cfg.Streams, MaxStreams, MaxUpdateSets)
	}
	streams := cfg.Streams
	if streams == 0 {
		streams = MinStreams(cfg.SF)
	}
	if err := CheckSeeds(cfg.Seed, streams, cfg.UseDefaultParams); err != nil {
		return err
	}
	if cfg.QueryTimeout < 0 {
		return fmt.Errorf("query timeout %s: it must not be negative (0 means no limit)", cfg.QueryTimeout)
	}
	return checkValidateConfig(cfg)
}

// runner holds one run's engine, settings and the state that the tests share.
type runner struct {
	eng     engine.Engine
	d       *engine.Dialect
	cfg     RunConfig
	info    engine.Info
	state   *state
	streams int
	seed    int64

	logMu  sync.Mutex
	logTTY bool
}

func newRunner(eng engine.Engine, cfg RunConfig) *runner {
	r := &runner{eng: eng, d: eng.Dialect(), cfg: cfg, state: newState(eng), streams: cfg.Streams}
	if r.streams == 0 {
		r.streams = MinStreams(cfg.SF)
	}
	r.logTTY = progress.IsTerminal(cfg.Log)
	return r
}

func (r *runner) logf(format string, args ...any) {
	if r.cfg.Log == nil {
		return
	}
	r.logMu.Lock()
	defer r.logMu.Unlock()
	prefix := ""
	if r.logTTY {
		prefix = "\r\x1b[K" // clear a progress bar drawn on the same terminal
	}
	fmt.Fprintf(r.cfg.Log, "%s%s %s\n", prefix, time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// Run runs a TPC-H benchmark on eng (Clause 5.3): the load test (unless SkipLoad),
// an answer check when asked for, the power test and the throughput test. The result
// is handed to cfg.Checkpoint after each test, so a crash keeps what finished. When
// the run stops early (an error, or ctx cancelled by Ctrl-C) the returned result
// holds what finished, with Failed set, and is handed over too; the error says why.
// Mistakes found before anything is measured (a bad setting, a database that does
// not hold what SkipLoad expects) return no result and hand over nothing, so they
// never replace an earlier result.json.
//
// Update sets: a load makes set 1 the next; the power test takes the next set and
// the throughput test the S after it, for RF1/RF2 pairs 1..S in order. The next
// set is kept in the database (table tierbench_state) and advanced before a set is
// applied, so later runs on the same database go on with fresh sets and a set is
// never applied twice, even after a crash.
func Run(ctx context.Context, eng engine.Engine, cfg RunConfig) (*Result, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	r := newRunner(eng, cfg)
	info, err := eng.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("engine info: %w", err)
	}
	r.info = info
	if err := r.checkCapacity(); err != nil {
		return nil, err
	}
	if err := r.preflight(ctx); err != nil {
		return nil, err
	}
	res := &Result{
		Tool:      "tierbench",
		Benchmark: meta.Name,
		SF:        cfg.SF,
		Streams:   r.streams,
		Engine:    info,
		Started:   time.Now().UTC().Format(time.RFC3339),
	}
	if err := r.load(ctx, res); err != nil {
		return r.fail(res, err)
	}
	r.write(res)
	if cfg.Validate || cfg.ValidateAgainst != nil {
		v, err := r.qualify(ctx)
		res.Validation = v
		if err != nil {
			return r.fail(res, err)
		}
	}
	r.mark(WindowPower, true)
	p, err := r.powerTest(ctx)
	r.mark(WindowPower, false)
	res.Power = p
	if err != nil {
		return r.fail(res, err)
	}
	r.write(res)
	r.mark(WindowThroughput, true)
	t, err := r.throughputTest(ctx)
	r.mark(WindowThroughput, false)
	res.Throughput = t
	if err != nil {
		return r.fail(res, err)
	}
	res.Finished = time.Now().UTC().Format(time.RFC3339)
	Finalize(res)
	if err := r.writeErr(res); err != nil {
		return res, err
	}
	return res, nil
}

// preflight checks what can be checked before anything is measured: that the engine
// takes the sessions the throughput test holds; with SkipLoad, that the database
// holds a finished load of this SF with enough update sets left (and, to validate,
// one no refresh has changed); otherwise, that the database has room for a load.
func (r *runner) preflight(ctx context.Context) error {
	if err := r.checkSessions(ctx); err != nil {
		return err
	}
	if !r.cfg.SkipLoad {
		return r.prepareLoad(ctx)
	}
	if err := r.checkLoaded(ctx); err != nil {
		return err
	}
	if err := r.checkUpdateSets(ctx); err != nil {
		return err
	}
	if r.cfg.Validate || r.cfg.ValidateAgainst != nil {
		return r.checkUnrefreshed(ctx)
	}
	return nil
}

// load runs the load test and records the load in the state table (skipped with
// SkipLoad), and settles the seed: RunConfig.Seed, or the end of the load as
// mmddhhmmss, or without a load the start of the tests.
func (r *runner) load(ctx context.Context, res *Result) error {
	seedTime := time.Now()
	if r.cfg.SkipLoad {
		res.Load = &LoadResult{Skipped: true}
	} else {
		r.mark(WindowLoad, true)
		load, err := r.loadTest(ctx)
		r.mark(WindowLoad, false)
		res.Load = load
		if err != nil {
			return err
		}
		seedTime = time.Now()
		if err := r.recordLoad(ctx, seedTime); err != nil {
			return err
		}
	}
	r.seed = r.cfg.Seed
	if r.seed == 0 {
		r.seed = SeedFromTime(seedTime)
	}
	res.Seed = r.seed
	return nil
}

// recordLoad notes a finished load in the state table: its scale factor, its end,
// and that update set 1 comes next.
func (r *runner) recordLoad(ctx context.Context, end time.Time) error {
	for _, kv := range [][2]string{
		{stateSF, strconv.FormatFloat(r.cfg.SF, 'g', -1, 64)},
		{stateNextUpdateSet, "1"},
		{stateLoadFinished, end.UTC().Format(time.RFC3339)},
	} {
		if err := r.state.set(ctx, kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// checkLoaded refuses to run on a database whose load did not finish or that holds
// another scale factor. A database tierbench did not load (no state table) is
// checked by its SUPPLIER row count only.
func (r *runner) checkLoaded(ctx context.Context) error {
	if r.state.exists(ctx) {
		if _, ok, err := r.state.get(ctx, stateLoadFinished); err != nil {
			return err
		} else if !ok {
			return errors.New("the database's load did not finish: run again without skipping the load")
		}
		sf, _, err := r.state.get(ctx, stateSF)
		if err != nil {
			return err
		}
		if v, err := strconv.ParseFloat(sf, 64); err == nil && v != r.cfg.SF {
			return fmt.Errorf("the database holds SF %s data, not SF %g: run with SF %s or load again", sf, r.cfg.SF, sf)
		}
	}
	var n int64
	if err := r.eng.DB().QueryRowContext(ctx, "SELECT COUNT(*) FROM supplier").Scan(&n); err != nil {
		return fmt.Errorf("the database holds no TPC-H data (%w): run without skipping the load", err)
	}
	if want := dbgen.RowCount("supplier", r.cfg.SF); n != want {
		return fmt.Errorf("SUPPLIER has %d rows, SF %g has %d: the database holds another scale factor; load again", n, r.cfg.SF, want)
	}
	return nil
}

// fail records why the run stopped, finalizes and writes what finished.
func (r *runner) fail(res *Result, err error) (*Result, error) {
	res.Failed = err.Error()
	res.Finished = time.Now().UTC().Format(time.RFC3339)
	Finalize(res)
	r.logf("run failed: %v", err)
	if werr := r.writeErr(res); werr != nil {
		err = errors.Join(err, werr)
	}
	return res, err
}

// write saves the result between tests; a failure to save is logged, not fatal,
// because the final save reports it.
func (r *runner) write(res *Result) {
	if err := r.writeErr(res); err != nil {
		r.logf("%v", err)
	}
}

func (r *runner) writeErr(res *Result) error {
	if r.cfg.Checkpoint == nil {
		return nil
	}
	if err := r.cfg.Checkpoint(res); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}
