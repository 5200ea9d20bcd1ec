package postmark

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"tierbench/internal/capacity"
	"tierbench/internal/metrics"
	"tierbench/internal/result"
)

// Options are how a run goes besides its parameters.
type Options struct {
	// Preset names the preset the Config came from, for the result.
	Preset string
	// IgnoreLimits runs even when the estimate exceeds the directory's free space or
	// the host's available memory (capacity.OverrideFlag).
	IgnoreLimits bool
	// Mark, if set, is told when each phase starts and ends, by its name (create,
	// transactions, delete; IdleWindow for an idle run): the run lifecycle's
	// monitors, energy windows and verdict.
	Mark func(label string, start bool)
	// Checked, when set, is the estimate of a Check already made for this Config and
	// directory (the lifecycle's, before anything of the run started): Run does not
	// work the run out again.
	Checked *Estimate
	// Notes, when set, takes what Check says while it works the run out.
	Notes io.Writer
}

// IdleWindow is the window of an idle run (preset non-load).
const IdleWindow = "idle"

// WorkDirPattern names the working directory a run makes inside its directory (with
// a random suffix), so that the files never mix with what the directory holds.
const WorkDirPattern = "tierbench-files-*"

// OutOfFilesError is a run whose transactions would delete every file of the pool
// before they end: Postmark stops there, prints "out of files!" and no report.
type OutOfFilesError struct {
	Files, Transactions int
	// After is the number of transactions that run before the pool is empty.
	After int64
}

func (e *OutOfFilesError) Error() string {
	return fmt.Sprintf("--transactions %d: the pool of %d files is empty after transaction %d (Postmark stops there: \"out of files!\"): give more --files, fewer --transactions or a higher --create-bias",
		e.Transactions, e.Files, e.After)
}

// Check validates cfg and works the run out before it starts: the estimate, or an
// error when it runs out of files (OutOfFilesError) or would not fit in dir's free
// space or the host's memory (capacity.TooBigError, unless ignoreLimits). It stops,
// with ctx's cause, when ctx ends. The memory and what the pool holds whatever the
// draws are checked first (Expect), so that a run far too large is refused at once,
// with what it needs on average; the exact peak comes from working every operation
// out (Simulate), which draws every random number of the run. When that takes long,
// notes (if not nil) are told how long.
func Check(ctx context.Context, dir string, cfg Config, ignoreLimits bool, notes io.Writer) (Estimate, error) {
	if err := cfg.Validate(); err != nil {
		return Estimate{}, err
	}
	if cfg.Idle > 0 {
		return Estimate{}, nil
	}
	exp := Expect(cfg)
	if err := checkExpected(dir, cfg, exp, ignoreLimits); err != nil {
		return Estimate{}, err
	}
	est, err := simulate(ctx, cfg, timeNote(notes, cfg, exp, time.Now))
	if err != nil {
		return Estimate{}, fmt.Errorf("working the run out before it starts: %w", err)
	}
	if est.OutOfFiles {
		return est, &OutOfFilesError{Files: cfg.Files, Transactions: cfg.Transactions, After: est.Transactions}
	}
	return est, capacity.Check(need(dir, cfg, est), ignoreLimits)
}

// checkExpected refuses a run whose memory, or whose pool whatever the draws
// (Expected.PoolLeast), exceeds what this host has, saying what the run needs on
// average (Expected.PeakBytes).
func checkExpected(dir string, cfg Config, exp Expected, ignoreLimits bool) error {
	n := expectedNeed(dir, cfg, exp)
	if err := capacity.Check(capacity.Need{What: n.What, Memory: n.Memory, Basis: n.Basis}, ignoreLimits); err != nil || ignoreLimits {
		return err
	}
	lim, err := capacity.HostLimits(dir)
	if err != nil {
		return nil // as capacity.Check: limits that cannot be read refuse nothing
	}
	if least := exp.PoolLeast + float64(cfg.Files+cfg.Subdirs)*blockBytes; least > lim.DiskFree {
		return &capacity.TooBigError{Need: n, Resource: "disk", Estimate: n.Disk, Limit: lim.DiskFree, Where: lim.DiskDir}
	}
	return nil
}

// slowSimulation is how long working a run out may take without a note saying so.
const slowSimulation = 2 * time.Second

// timeNote is simulate's progress: once the operations have been worked out for a
// tenth of slowSimulation, it projects the rest from the numbers drawn so far against
// exp.Draws and, when that is longer than slowSimulation, tells notes, once. now is
// the clock. nil without notes.
func timeNote(notes io.Writer, cfg Config, exp Expected, now func() time.Time) func(drawn int64) {
	if notes == nil {
		return nil
	}
	var start time.Time
	told := false
	return func(drawn int64) {
		if start.IsZero() {
			start = now()
			return
		}
		spent := now().Sub(start)
		if told || spent < slowSimulation/10 || drawn <= 0 {
			return
		}
		told = true
		rest := time.Duration(float64(spent) * max(exp.Draws/float64(drawn)-1, 0))
		if rest > slowSimulation {
			fmt.Fprintf(notes, "note: working out the run's %d transactions before it starts (its exact counts and peak size, for the capacity check) takes about %s more; Ctrl-C stops it\n",
				cfg.Transactions, rest.Round(time.Second))
		}
	}
}

// blockBytes is what a file takes beyond its data, at most: the rest of its last
// block on a file system of 4 KiB blocks.
const blockBytes = 4096

// need is what a run with est's peak takes: on disk, its files, each rounded up to a
// block, and its subdirectories; in memory, the source text, the file table and the
// buffers.
func need(dir string, cfg Config, est Estimate) capacity.Need {
	return capacity.Need{
		What: what(cfg),
		Disk: float64(est.PeakBytes) + float64(est.PeakFiles+int64(cfg.Subdirs))*blockBytes, DiskDir: dir,
		Memory: memory(cfg),
		Basis: fmt.Sprintf("at most %d files holding %s at once, worked out from the run's own operations, each rounded up to a 4 KiB block",
			est.PeakFiles, capacity.Bytes(float64(est.PeakBytes))),
	}
}

// expectedNeed is need on average, from Postmark's rules.
func expectedNeed(dir string, cfg Config, exp Expected) capacity.Need {
	return capacity.Need{
		What: what(cfg),
		Disk: exp.PeakBytes + (exp.PeakFiles+float64(cfg.Subdirs))*blockBytes, DiskDir: dir,
		Memory: memory(cfg),
		Basis: fmt.Sprintf("on average %.0f files holding %s at once: %d new files of %s each on average (sizes drawn evenly from %d to %d bytes), grown by appends; each rounded up to a 4 KiB block",
			exp.PeakFiles, capacity.Bytes(exp.PeakBytes), cfg.Files, capacity.Bytes(exp.MeanSize), cfg.SizeMin, cfg.SizeMax),
	}
}

func what(cfg Config) string {
	return fmt.Sprintf("postmark run --files %d --size-max %d --transactions %d", cfg.Files, cfg.SizeMax, cfg.Transactions)
}

// memory is what a run holds in memory: the source text, the file table and the
// buffers.
func memory(cfg Config) float64 {
	return float64(cfg.SizeMax) + float64(2*cfg.Files)*slotBytes + float64(cfg.ReadBlock+cfg.WriteBlock)
}

// Run runs cfg in a new working directory inside dir (WorkDirPattern) and returns what
// it measured. Check comes first: a run that cannot complete or fit is refused before
// its first file. The working directory and everything in it are removed at the end,
// also on failure or cancellation. A failed or interrupted run returns its Result, with
// what it measured up to there, and an error.
func Run(ctx context.Context, dir string, cfg Config, opts Options) (*Result, error) {
	var est Estimate
	if opts.Checked != nil {
		est = *opts.Checked
	} else {
		var err error
		if est, err = Check(ctx, dir, cfg, opts.IgnoreLimits, opts.Notes); err != nil {
			return nil, err
		}
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("directory %s: %w", dir, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	res := &Result{Benchmark: meta.Name, Model: "Postmark 1.5", Status: result.StatusOK, Started: time.Now().UTC(),
		Preset: opts.Preset, Dir: dir, Config: cfg, Estimate: est, Definitions: definitions,
		Phases: []PhaseResult{}, Ops: map[string]metrics.OpReport{}}
	mark := opts.Mark
	if mark == nil {
		mark = func(string, bool) {}
	}
	if cfg.Idle > 0 {
		mark(IdleWindow, true)
		defer mark(IdleWindow, false)
		return res, idle(ctx, cfg.Idle, res)
	}
	work, err := os.MkdirTemp(dir, WorkDirPattern)
	if err != nil {
		return nil, fmt.Errorf("make the working directory in %s: %w", dir, err)
	}
	err = run(ctx, work, cfg, res, mark)
	if rerr := os.RemoveAll(work); rerr != nil && err == nil {
		err = fmt.Errorf("remove the working directory: %w", rerr)
	}
	if err != nil {
		res.Status, res.Error = result.StatusFailed, err.Error()
		if ctx.Err() != nil {
			res.Status = result.StatusInterrupted
		}
	}
	return res, err
}

// idle waits for d, or until ctx ends.
func idle(ctx context.Context, d time.Duration, res *Result) error {
	start := time.Now()
	t := time.NewTimer(d)
	defer t.Stop()
	var err error
	select {
	case <-t.C:
	case <-ctx.Done():
		err = fmt.Errorf("idle run interrupted: %w", context.Cause(ctx))
		res.Status, res.Error = result.StatusInterrupted, err.Error()
	}
	res.IdleS = time.Since(start).Seconds()
	return err
}

// runner is one run's state.
type runner struct {
	done <-chan struct{}
	ctx  context.Context
	x    *executor
	reg  *metrics.Registry
	h    *metrics.Handle
	// ops records each Kind's latencies without finding it by name.
	ops   [len(kindNames)]metrics.Op
	start time.Time
	res   *Result
	mark  func(label string, start bool)
}

// run makes the subdirectories, then runs Postmark's three phases in work, recording
// each phase as it ends, also when one stops early.
func run(ctx context.Context, work string, cfg Config, res *Result, mark func(string, bool)) (err error) {
	if cfg.Subdirs > 1 {
		for i := range cfg.Subdirs {
			if err := context.Cause(ctx); err != nil { // up to a million, seconds on a slow disk
				return fmt.Errorf("run interrupted while making the subdirectories: %w", err)
			}
			if err := os.Mkdir(filepath.Join(work, "s"+strconv.Itoa(i)), 0o700); err != nil {
				return fmt.Errorf("make the subdirectories: %w", err)
			}
		}
	}
	g, err := newGenerator(ctx, cfg, true)
	if err != nil {
		return fmt.Errorf("run interrupted while drawing the source text: %w", err)
	}
	r := &runner{done: ctx.Done(), ctx: ctx, x: newExecutor(work, cfg, g.Source()), res: res, mark: mark}
	r.start = time.Now()
	r.reg = metrics.NewRegistry(OpNames(), r.start)
	r.h = r.reg.NewHandle()
	for k := range kindNames {
		r.ops[k], _ = r.h.Op(kindNames[k]) // the registry's operations are kindNames
	}
	defer func() { r.finish() }()

	mark(PoolPhase.String(), true)
	for range cfg.Files {
		if err := r.do(g.PoolFile(), PoolPhase); err != nil {
			r.endPhase(PoolPhase)
			return err
		}
	}
	r.endPhase(PoolPhase)

	var ops []Op
	mark(TransactionsPhase.String(), true)
	for range cfg.Transactions {
		var ok bool
		if ops, ok = g.Transaction(ops[:0]); !ok {
			// Check refuses such a run; the generator is deterministic, so this is
			// only reached if they disagree.
			res.OutOfFiles = true
			break
		}
		for _, op := range ops {
			if err := r.do(op, TransactionsPhase); err != nil {
				r.endPhase(TransactionsPhase)
				return err
			}
		}
		res.Transactions++
	}
	r.endPhase(TransactionsPhase)

	mark(DeletePhase.String(), true)
	for _, op := range g.Remaining(nil) {
		if err := r.do(op, DeletePhase); err != nil {
			r.endPhase(DeletePhase)
			return err
		}
	}
	r.endPhase(DeletePhase)
	return nil
}

// do runs one operation, first checking for cancellation, and records it.
func (r *runner) do(op Op, p Phase) error {
	select {
	case <-r.done:
		return fmt.Errorf("run interrupted in the %s phase: %w", p, context.Cause(r.ctx))
	default:
	}
	t0 := monotonic()
	if err := r.x.do(op); err != nil {
		r.h.Record(op.Kind.String(), 0, metrics.Counts{Errors: 1})
		return err
	}
	r.ops[op.Kind].Record(time.Duration(monotonic() - t0))
	r.res.Counts.add(op, p)
	if afterOp != nil {
		afterOp(r.res.Counts)
	}
	return nil
}

// afterOp, set by tests only, is called after every operation with the counts so far:
// a test interrupts or breaks a run at a chosen point with it.
var afterOp func(Counts)

// endPhase closes phase p: its length, its operations and its window.
func (r *runner) endPhase(p Phase) {
	interval, _ := r.reg.Tick(time.Now(), r.start)
	r.mark(p.String(), false)
	r.res.Phases = append(r.res.Phases, PhaseResult{Name: p.String(), Seconds: interval.Duration().Seconds(), Ops: reports(interval)})
}

// finish sets the totals from the phases recorded.
func (r *runner) finish() {
	var elapsed float64
	for _, p := range r.res.Phases {
		elapsed += p.Seconds
	}
	r.res.ElapsedS = elapsed
	_, all := r.reg.Tick(r.start.Add(time.Duration(elapsed*float64(time.Second))), r.start)
	r.res.Ops = reports(all)
	r.res.rates()
}

func reports(s *metrics.Snapshot) map[string]metrics.OpReport {
	m := map[string]metrics.OpReport{}
	for _, op := range OpNames() {
		m[op] = s.Report(op)
	}
	return m
}
