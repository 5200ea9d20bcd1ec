package vuser

import (
	"context"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"tierbench/internal/metrics"
	"tierbench/internal/result"
)

// Transactions makes one Worker per virtual user.
type Transactions interface {
	// Ops names the operations (transaction types) the workers report.
	Ops() []string
	// NewWorker prepares user number user (0-based), e.g. opens its session.
	NewWorker(ctx context.Context, user int) (Worker, error)
}

// Txn is the next transaction a user runs and the pauses around it.
type Txn struct {
	Op string
	// Keying is the pause before the transaction, Think the pause after it (closed
	// loop only; TPC-C 5.2.5).
	Keying, Think time.Duration
}

// Outcome is how one transaction ended.
type Outcome struct {
	// Queries are the statements sent, counting BEGIN and COMMIT.
	Queries int
	// Retries are attempts repeated after a deadlock or serialization failure.
	Retries int
	// Rollback marks a rollback the workload asked for: a completed transaction.
	Rollback bool
	// Err is set when the transaction failed after any retries.
	Err error
	// Fatal means the connection or the server is gone: the run stops.
	Fatal bool
	// Waits is how long the transaction waited for each of the workload's gates
	// (Gated), in their order; nil for a workload without gates.
	Waits []time.Duration
}

// Gate is something of the application's own that a transaction may wait for before
// it reaches the database: a connection pool smaller than the users, or a critical
// section that at most Holders users are in at once.
type Gate struct {
	Name string `json:"name"`
	// Kind is "pool" or "critical".
	Kind    string `json:"kind"`
	Holders int    `json:"holders"`
}

// Gated is implemented by workloads whose transactions pass the application's gates;
// their workers report each transaction's waits in Outcome.Waits, in this order.
type Gated interface {
	Gates() []Gate
}

// Worker is one virtual user's transaction source. Its methods are called from one
// goroutine.
type Worker interface {
	Next() Txn
	Run(ctx context.Context, op string) Outcome
	Close() error
}

// Discarder is implemented by workers that can also close without cleaning up on the
// server: Discard drops the session's connection (DropConn), and the server frees
// what the session held with it. A run that is interrupted or failed discards its
// workers: closing thousands of PostgreSQL sessions cleanly, a prepared statement
// after another, took 5 ms each, 50 s for 10,000 users after a Ctrl-C.
type Discarder interface {
	Discard() error
}

// closeWorker closes w, or discards it when the run is being abandoned (abandon) and
// w can be.
func closeWorker(w Worker, abandon bool) {
	if d, ok := w.(Discarder); ok && abandon {
		_ = d.Discard()
		return
	}
	_ = w.Close()
}

// Config describes one run.
type Config struct {
	// Users is the number of virtual users (at least 1).
	Users int
	// Ramp is the warm-up before the measured window; users start spread over it.
	Ramp time.Duration
	// Duration is the measured window.
	Duration time.Duration
	// Rate, when above 0, makes the run open-loop at Rate transactions per second in
	// total; keying and think times are then ignored.
	Rate float64
	// Interval is the report interval (default 10 s).
	Interval time.Duration
	// Lines receives one text line per interval (nil: none).
	Lines io.Writer
	// JSON receives one IntervalRecord per interval (nil: none).
	JSON *metrics.JSONLines
	// Window, if set, is called when the measured window begins (start true) and when
	// it ends, from the goroutine that measures; TPC-C reads the server's counters there.
	Window func(ctx context.Context, start bool) error
	// IO, if set, reads I/O counters at the start, at every interval's end and at the
	// window's ends; their differences become each interval's and the window's I/O
	// rates. A failed reading leaves those rates out and is reported in Summary.IOError;
	// it does not fail the run.
	IO func(ctx context.Context) (metrics.IOSample, error)
	// Observer, if set, sees every interval record as it is written (Prometheus's
	// throughput and latency); the measured window's ends go to Window.
	Observer metrics.Observer
	// StopGrace is how long transactions in flight at the end of the window may take to
	// finish before they are cancelled (default 10 s).
	StopGrace time.Duration
	// onStart, in tests, sees the run once its users' workers are open.
	onStart func(*run)
	// MaxErrorShare is the share of failed transactions (0 to 1) above which a window
	// that completed is failed all the same (CheckErrors); 0 allows none. A transaction
	// type that fails every time it runs fails the window whatever the share.
	MaxErrorShare float64
}

// Summary is what a run measured. It is complete also for a failed or interrupted
// run: Measured then covers the window up to the failure.
type Summary struct {
	Users int
	// Start is when the first user started, after every user had opened its session
	// (Connect is how long that took); MeasureStart is when the window began (zero if
	// the run ended during the ramp), End when measurement ended.
	Start, MeasureStart, End time.Time
	Connect                  time.Duration
	// Measured is the cumulative snapshot of the measured window.
	Measured *metrics.Snapshot
	Status   result.Status
	// Cause is why a run failed or was interrupted.
	Cause string
	// IO is the I/O rates over the measured window (nil without Config.IO or when a
	// reading at either end failed); IOError is the first reading that failed.
	IO      *metrics.IORates
	IOError string
	// ClientCPU is what the process spent over the measured window (nil when the
	// window did not begin, or the process's CPU time could not be read).
	ClientCPU *ClientCPU
	// Lag is how far the window's transactions started behind their schedule (open
	// loop only).
	Lag *ScheduleLag
	// Gates are the workload's gates (Gated), whose waits Measured holds.
	Gates []Gate
}

// Validate checks a configuration, with errors fit for a user.
func (c Config) Validate() error {
	if c.Users < 1 {
		return fmt.Errorf("users %d: give at least 1 virtual user", c.Users)
	}
	if c.Ramp < 0 {
		return fmt.Errorf("ramp %s: give a duration of 0 or more", c.Ramp)
	}
	if c.Duration <= 0 {
		return fmt.Errorf("duration %s: give a positive duration such as 30s or 5m", c.Duration)
	}
	if !(c.Rate >= 0) || math.IsInf(c.Rate, 0) {
		return fmt.Errorf("rate %v: give transactions per second above 0, or 0 for a closed loop", c.Rate)
	}
	if !(c.MaxErrorShare >= 0 && c.MaxErrorShare <= 1) {
		return fmt.Errorf("max error share %v: give a share from 0 to 1, e.g. 0.01 for one in a hundred", c.MaxErrorShare)
	}
	return nil
}

// ValidateLevels checks a sweep before its first level runs: at least one level, and
// c with each level's users valid.
func (c Config) ValidateLevels(users []int) error {
	if len(users) == 0 {
		return fmt.Errorf("give at least one number of users")
	}
	for _, u := range users {
		c.Users = u
		if err := c.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// Run runs the workload and returns what it measured. The error is nil for a run that
// completed; a failed or interrupted run returns its Summary and an error.
func Run(parent context.Context, w Transactions, cfg Config) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Interval <= 0 {
		cfg.Interval = 10 * time.Second
	}
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = 10 * time.Second
	}
	// stmtCtx ends statements (interrupt, failure, or a grace period after the window);
	// loopCtx only stops users from starting new transactions.
	stmtCtx, cancelStmts := context.WithCancel(parent)
	defer cancelStmts()
	loopCtx, stopLoops := context.WithCancel(stmtCtx)
	defer stopLoops()

	connectStart := time.Now()
	workers, err := connect(stmtCtx, w, cfg.Users)
	start := time.Now()
	reg := metrics.NewRegistry(w.Ops(), start)
	sum := &Summary{Users: cfg.Users, Start: start, Connect: start.Sub(connectStart), Status: result.StatusOK}
	if g, ok := w.(Gated); ok {
		sum.Gates = g.Gates()
		names := make([]string, len(sum.Gates))
		for i, gt := range sum.Gates {
			names[i] = gt.Name
		}
		reg.SetWaits(names)
	}
	if err != nil {
		sum.End, sum.Measured = start, emptySnapshot(reg, start, start)
		if parent.Err() != nil {
			sum.Status, sum.Cause = result.StatusInterrupted, context.Cause(parent).Error()
			return sum, fmt.Errorf("run interrupted: %w", context.Cause(parent))
		}
		sum.Status, sum.Cause = result.StatusFailed, err.Error()
		return sum, fmt.Errorf("run failed: %s", sum.Cause)
	}
	r := &run{cfg: cfg, reg: reg, start: start}
	for range min(cfg.Users, maxHandles) {
		r.handles = append(r.handles, reg.NewHandle())
	}
	if cfg.onStart != nil {
		cfg.onStart(r)
	}
	if cfg.Rate > 0 {
		r.lag = &lagMeter{late: userInterval(cfg)}
	}
	r.failCh = make(chan struct{})

	prevIO, havePrev := r.sampleIO(parent)
	var windowIO metrics.IOSample
	haveWindow := false
	var wg sync.WaitGroup
	for u, worker := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { closeWorker(worker, r.abandoned(parent)) }()
			r.user(loopCtx, stmtCtx, worker, u)
		}()
	}

	measureStart := start.Add(cfg.Ramp)
	end := measureStart.Add(cfg.Duration)
	measuring := cfg.Ramp == 0
	// The process's CPU time when the window began.
	var cpu0 time.Duration
	cpuOK := false
	beginWindow := func(now time.Time) {
		sum.MeasureStart = now
		cpu0, cpuOK = readCPU()
		if r.lag != nil {
			r.lag.reset()
		}
		r.window(parent, true)
		windowIO, haveWindow = prevIO, havePrev
	}
	if measuring {
		beginWindow(start)
	}
	var last *metrics.Snapshot
	tick := func(now time.Time) {
		phase := "measure"
		if !measuring {
			phase = "ramp"
		}
		iv, cum := reg.Tick(now, start)
		last = cum
		rec := metrics.NewIntervalRecord(iv, phase, cfg.Users)
		if cur, ok := r.sampleIO(parent); ok {
			if havePrev {
				rec.IO = metrics.NewIORates(prevIO, cur)
			}
			prevIO, havePrev = cur, true
		} else {
			havePrev = false
		}
		if cfg.Lines != nil {
			fmt.Fprintln(cfg.Lines, metrics.IntervalLine(rec))
		}
		if cfg.JSON != nil {
			_ = cfg.JSON.Write(rec)
		}
		if cfg.Observer != nil {
			cfg.Observer.Interval(rec)
		}
	}
	next := start.Add(cfg.Interval)
	timer := time.NewTimer(0)
	defer timer.Stop()
loop:
	for {
		at := next
		if !measuring && measureStart.Before(at) {
			at = measureStart
		}
		if end.Before(at) {
			at = end
		}
		timer.Reset(time.Until(at))
		select {
		case <-parent.Done():
			tick(time.Now())
			sum.Status, sum.Cause = result.StatusInterrupted, context.Cause(parent).Error()
			break loop
		case <-r.failCh:
			tick(time.Now())
			sum.Status, sum.Cause = result.StatusFailed, r.cause.Error()
			break loop
		case <-timer.C:
		}
		now := time.Now()
		switch {
		case !measuring && !now.Before(measureStart):
			tick(now)
			reg.ResetCumulative(now)
			measuring = true
			beginWindow(now)
			next = now.Add(cfg.Interval)
		case !now.Before(end):
			tick(now)
			break loop
		default:
			tick(now)
			next = next.Add(cfg.Interval)
		}
	}
	sum.End = time.Now()
	if measuring && cpuOK && last != nil {
		if cpu1, ok := readCPU(); ok {
			sum.ClientCPU = newClientCPU(cpu1-cpu0, sum.End.Sub(sum.MeasureStart), last.Count(""), numCPU())
		}
	}
	if measuring {
		// Also after an interrupt or a failure: the server may still answer.
		wctx, cancel := context.WithTimeout(context.WithoutCancel(parent), 5*time.Second)
		r.window(wctx, false)
		cancel()
	}
	if !measuring {
		last = emptySnapshot(reg, sum.End, start)
	}
	if measuring && r.lag != nil {
		sum.Lag = r.lag.result()
	}
	if measuring && haveWindow && havePrev {
		sum.IO = metrics.NewIORates(windowIO, prevIO)
	}
	if r.ioErr != nil {
		sum.IOError = r.ioErr.Error()
	}
	sum.Measured = last
	stopLoops()
	if sum.Status != result.StatusOK {
		cancelStmts() // interrupted or failed: stop statements in flight at once
	}
	grace := time.AfterFunc(cfg.StopGrace, cancelStmts)
	wg.Wait()
	grace.Stop()
	if sum.Status == result.StatusOK && r.windowErr != nil {
		sum.Status, sum.Cause = result.StatusFailed, r.windowErr.Error()
	}
	if sum.Status == result.StatusOK {
		if err := CheckErrors(sum.Measured, w.Ops(), cfg.MaxErrorShare); err != nil {
			sum.Status, sum.Cause = result.StatusFailed, err.Error()
			return sum, fmt.Errorf("run failed: %w", err)
		}
	}
	switch sum.Status {
	case result.StatusFailed:
		return sum, fmt.Errorf("run failed: %s", sum.Cause)
	case result.StatusInterrupted:
		return sum, fmt.Errorf("run interrupted: %w", context.Cause(parent))
	}
	return sum, nil
}

// readCPU is processCPU, false when it fails (the figure is then left out).
func readCPU() (time.Duration, bool) {
	d, err := processCPU()
	return d, err == nil
}

func emptySnapshot(reg *metrics.Registry, at, start time.Time) *metrics.Snapshot {
	s := &metrics.Snapshot{Start: at, End: at, Elapsed: at.Sub(start), Ops: map[string]*metrics.OpStats{}, Order: reg.Ops()}
	for _, op := range reg.Ops() {
		s.Ops[op] = &metrics.OpStats{Hist: metrics.NewHistogram()}
	}
	return s
}

// maxHandles bounds the metrics handles of a run. Users share them beyond that: a
// handle holds a latency histogram of about 26 KiB per transaction type, which for a
// handle per user came to 13 GB at 100,000 TPC-C users (and as much for each tick to
// merge), while a handle's lock, taken once a transaction, costs nothing next to a
// round trip to the server.
const maxHandles = 64

type run struct {
	cfg   Config
	reg   *metrics.Registry
	start time.Time
	// handles are the users' metrics handles: user u records into handles[u % len].
	handles []*metrics.Handle

	lag *lagMeter // open loop only

	failOnce  sync.Once
	failCh    chan struct{}
	cause     error
	windowErr error
	ioErr     error
}

// sampleIO reads the I/O counters (false without Config.IO or on an error, the first
// of which is kept). It also reads after an interrupt: the server may still answer.
func (r *run) sampleIO(ctx context.Context) (metrics.IOSample, bool) {
	if r.cfg.IO == nil {
		return metrics.IOSample{}, false
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	s, err := r.cfg.IO(sctx)
	if err != nil {
		if r.ioErr == nil {
			r.ioErr = err
		}
		return s, false
	}
	if s.At.IsZero() {
		s.At = time.Now()
	}
	return s, true
}

// abandoned reports a run that was interrupted (parent ended) or failed: its workers
// are discarded, not closed cleanly.
func (r *run) abandoned(parent context.Context) bool {
	select {
	case <-r.failCh:
		return true
	default:
		return parent.Err() != nil
	}
}

func (r *run) fail(err error) {
	r.failOnce.Do(func() {
		r.cause = err
		close(r.failCh)
	})
}

func (r *run) window(ctx context.Context, start bool) {
	if r.cfg.Window == nil {
		return
	}
	if err := r.cfg.Window(ctx, start); err != nil && r.windowErr == nil {
		r.windowErr = err
	}
}

// connectParallel bounds how many users open their sessions at once.
const connectParallel = 16

// connect opens every user's worker before the run's clock starts, as pgbench and
// sysbench connect their clients first: logins then fall neither into the ramp nor
// into the window, and with thousands of users none waits for its login behind a
// server the others already saturate (on 2 CPUs, a PostgreSQL login at user 1,818 of
// 2,000 spread over a 10 s ramp did not finish within the 10 s connect timeout). The
// first error stops the other logins, closes the workers already open and names its
// user.
func connect(ctx context.Context, w Transactions, users int) ([]Worker, error) {
	workers := make([]Worker, users)
	ids := func(yield func(int) bool) {
		for u := 0; u < users && yield(u); u++ {
		}
	}
	err := Parallel(ctx, connectParallel, ids, func(ctx context.Context, u int) error {
		worker, err := w.NewWorker(ctx, u)
		if err != nil {
			return fmt.Errorf("user %d: %w", u+1, err)
		}
		workers[u] = worker
		return nil
	})
	if err != nil {
		// The run will not start: the sessions already open are dropped, at once.
		for _, worker := range workers {
			if worker != nil {
				closeWorker(worker, true)
			}
		}
		return nil, err
	}
	return workers, nil
}

// user runs one virtual user until loopCtx ends; its worker is open, and starts after
// its share of the ramp.
func (r *run) user(loopCtx, stmtCtx context.Context, worker Worker, u int) {
	if r.cfg.Ramp > 0 && r.cfg.Users > 1 {
		delay := time.Duration(int64(r.cfg.Ramp) * int64(u) / int64(r.cfg.Users))
		if !sleep(loopCtx, delay) {
			return
		}
	}
	h := r.handles[u%len(r.handles)]
	var waitNs []int64 // the transaction's waits, reused
	var interval time.Duration
	var intended time.Time
	if r.cfg.Rate > 0 {
		interval = userInterval(r.cfg)
		// Spread the users' schedules over one interval.
		intended = time.Now().Add(time.Duration(int64(interval) * int64(u) / int64(r.cfg.Users)))
	}
	for loopCtx.Err() == nil {
		txn := worker.Next()
		var begin time.Time
		if interval > 0 {
			if !sleep(loopCtx, time.Until(intended)) {
				return
			}
			begin = intended // latency from the intended start: no coordinated omission
			r.lag.add(time.Since(intended))
			intended = intended.Add(interval)
		} else {
			if !sleep(loopCtx, txn.Keying) {
				return
			}
			begin = time.Now()
		}
		res := worker.Run(stmtCtx, txn.Op)
		latency := time.Since(begin)
		if stmtCtx.Err() != nil {
			return // cut short by the end of the run: neither a success nor an error
		}
		c := metrics.Counts{Queries: int64(res.Queries), Retries: int64(res.Retries)}
		if len(res.Waits) > 0 {
			waitNs = waitNs[:0]
			for _, d := range res.Waits {
				waitNs = append(waitNs, int64(d))
			}
			c.WaitNs = waitNs
		}
		switch {
		case res.Err != nil:
			// The error is kept with its count, in the same window: a first error kept
			// apart from the counts outlived them, naming errors the window did not count.
			h.RecordError(txn.Op, time.Now(), res.Err.Error(), c)
		case res.Rollback:
			c.Rollbacks = 1
			h.Record(txn.Op, latency, c)
		default:
			h.Record(txn.Op, latency, c)
		}
		if res.Fatal {
			r.fail(fmt.Errorf("user %d, %s: %w", u+1, txn.Op, res.Err))
			return
		}
		if interval == 0 && !sleep(loopCtx, txn.Think) {
			return
		}
	}
}

// userInterval is the time between one open-loop user's transactions.
func userInterval(cfg Config) time.Duration {
	return time.Duration(float64(cfg.Users) / cfg.Rate * float64(time.Second))
}

// sleep waits d or until ctx ends; it reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
