//go:build linux

package emulator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"tierbench/internal/device"
	"tierbench/internal/emulator/preload"
)

// probe is one fio-like job.
type probe struct {
	name, metric string
	op           device.Op
	size         int64
	depth        int
	sequential   bool
	fsync        bool // write then fsync, one at a time (a commit)
	max          int
}

// ProbeCount is how many probes a calibration runs.
var ProbeCount = len(probes)

var probes = []probe{
	{name: "randread-8k-qd1", metric: "mean_latency_us", op: device.OpRead, size: 8 << 10, depth: 1, max: 4000},
	{name: "randread-8k-qd32", metric: "iops", op: device.OpRead, size: 8 << 10, depth: 32, max: 40000},
	{name: "randwrite-8k-qd1", metric: "mean_latency_us", op: device.OpWrite, size: 8 << 10, depth: 1, max: 4000},
	{name: "randwrite-8k-qd32", metric: "iops", op: device.OpWrite, size: 8 << 10, depth: 32, max: 40000},
	{name: "seqread-1m-qd1", metric: "mb_per_s", op: device.OpRead, size: 1 << 20, depth: 1, sequential: true, max: 256},
	{name: "seqwrite-1m-qd1", metric: "mb_per_s", op: device.OpWrite, size: 1 << 20, depth: 1, sequential: true, max: 256},
	{name: "fsync-8k", metric: "fsyncs_per_s", op: device.OpWrite, size: 8 << 10, depth: 1, sequential: true, fsync: true, max: 2000},
}

// Calibrate runs fio-like probes through an emulated device of spec, each on a fresh
// mount, and compares each with the same requests run through a fresh model in virtual
// time (closed loop, no gaps): the difference is what real-time emulation on this host
// adds or loses.
func Calibrate(ctx context.Context, spec string, opts CalibrateOptions) (*Calibration, error) {
	if opts.Budget < 0 {
		return nil, fmt.Errorf("calibrate: budget %v is negative: give each probe's longest run (0: the default 1.2s)", opts.Budget)
	}
	switch opts.Path {
	case "", PathFUSE:
		opts.Path = PathFUSE
		if err := CheckFUSE(); err != nil {
			return nil, err
		}
	case PathPreload:
	default:
		return nil, fmt.Errorf("calibrate: path %q: give %s or %s", opts.Path, PathFUSE, PathPreload)
	}
	reg, err := device.Load(opts.Profiles...)
	if err != nil {
		return nil, err
	}
	model, err := buildModel(reg, spec)
	if err != nil {
		return nil, err
	}
	capacity := int64(1 << 40)
	if s, ok := model.(device.Sized); ok && s.Capacity() > 0 {
		capacity = min(capacity, s.Capacity())
	}
	span := capacity / chunkSize * chunkSize
	budget := opts.Budget
	if budget == 0 {
		budget = 1200 * time.Millisecond
	}
	dir := opts.Dir
	if dir == "" {
		parent := ""
		if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
			parent = "/dev/shm"
		}
		if dir, err = os.MkdirTemp(parent, "tierbench-calibrate-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	}
	cal := &Calibration{Profile: spec, Path: opts.Path}
	if spec != NullSpec {
		fig, err := reg.Characterize(spec)
		if err != nil {
			return nil, err
		}
		cal.ModelRead8KUs = us(fig.RandRead8KQD1)
	}

	// The host's own limits, on a null device.
	ceiling := probe{name: "ceiling", op: device.OpRead, size: 4 << 10, depth: 32, max: 200000}
	null, err := runProbe(ctx, dir, NullSpec, ceiling, 1<<30, 300*time.Millisecond, opts.Options, false)
	if err != nil {
		return nil, err
	}
	cal.FloorUs = null.floorUs
	cal.CeilingIOPS = float64(null.n) / null.elapsed.Seconds()
	cal.ThreadCeilingIOPS = cal.CeilingIOPS
	if opts.Path == PathPreload {
		// what a database's 32 synchronous threads could pass, on any device
		t, err := runProbe(ctx, dir, NullSpec, ceiling, 1<<30, 300*time.Millisecond, opts.Options, true)
		if err != nil {
			return nil, err
		}
		cal.ThreadCeilingIOPS = float64(t.n) / t.elapsed.Seconds()
	}

	for _, p := range probes {
		if err := ctx.Err(); err != nil {
			return cal, err
		}
		// What the path itself costs these requests: the same probe on a device that
		// takes no time.
		path, err := nullRounds(ctx, dir, p, span, budget, opts.Options)
		if err != nil {
			return cal, fmt.Errorf("probe %s on a null device: %w", p.name, err)
		}
		cost := pathCostOf(p, path)
		// Rounds, each on a fresh device, while they fit the budget (at most
		// maxRounds, an odd number): the round with the median error is reported,
		// so one burst of the host's (a vCPU descheduled for milliseconds) does not
		// decide a fast device's figures.
		var rounds [][]ProbeResult
		var spent time.Duration
		for {
			run, err := runProbe(ctx, dir, spec, p, span, budget, opts.Options, false)
			if err != nil {
				return cal, fmt.Errorf("probe %s: %w", p.name, err)
			}
			if run.floorUs > 0 && run.floorUs < cal.FloorUs {
				cal.FloorUs = run.floorUs
			}
			if cal.CompensationUs == 0 {
				cal.CompensationUs = us(run.dev.Compensation)
				cal.CompensationPerMiBUs = [2]float64{us(run.dev.CompensationPerMiB[0]), us(run.dev.CompensationPerMiB[1])}
			}
			results, err := evaluate(func() (device.Model, error) { return buildModel(reg, spec) }, p, run, cost, opts.Path)
			if err != nil {
				return cal, err
			}
			rounds = append(rounds, results)
			spent += run.elapsed
			if !anotherRound(ctx, len(rounds), spent, run.elapsed, budget) {
				break
			}
		}
		for _, r := range medianRound(rounds) {
			cal.Probes = append(cal.Probes, r)
			if opts.Progress != nil {
				fmt.Fprintf(opts.Progress, "%-18s %-16s model %10.1f  measured %10.1f  error %+6.1f%%\n", r.Probe, r.Metric, r.Model, r.Measured, r.ErrorPct)
			}
		}
	}
	// the floor is the least any of the mounts measured
	cal.TooFast = spec != NullSpec && cal.ModelRead8KUs < tooFastFactor*cal.FloorUs
	if caps, ok := device.CapsOf(model); ok {
		shapes := map[string]probeShape{}
		for _, p := range probes {
			shapes[p.name] = probeShape{size: p.size, sequential: p.sequential}
		}
		cal.CapChecks = capChecks(caps, cal.Probes, shapes)
	}
	return cal, nil
}

// maxRounds bounds a probe's rounds; hostTolerance is how far (a fraction) the path's
// own costs may move a figure before the probe is called host-limited: half the 10%
// within which calibration should agree.
const (
	maxRounds     = 5
	hostTolerance = 0.05
)

// anotherRound says whether a probe runs again after n rounds that took spent, the
// last one last: up to maxRounds, while another one fits the budget, and always an odd
// number (the median is one round).
func anotherRound(ctx context.Context, n int, spent, last, budget time.Duration) bool {
	return n < maxRounds && (n%2 == 0 || spent+last <= budget) && ctx.Err() == nil
}

// nullRounds runs p on a null device in rounds as Calibrate runs it on the model's, and
// returns the round with the median figure (mean latency at queue depth 1, the rate
// deeper).
func nullRounds(ctx context.Context, dir string, p probe, span int64, budget time.Duration, opts Options) (*probeRun, error) {
	var runs []*probeRun
	var spent time.Duration
	figure := func(r *probeRun) float64 {
		if p.depth == 1 {
			return float64(r.latSum) / float64(max(r.n, 1))
		}
		return float64(r.n) / r.elapsed.Seconds()
	}
	for {
		run, err := runProbe(ctx, dir, NullSpec, p, span, budget, opts, false)
		if err != nil {
			return nil, err
		}
		runs = append(runs, run)
		spent += run.elapsed
		if !anotherRound(ctx, len(runs), spent, run.elapsed, budget) {
			break
		}
	}
	slices.SortStableFunc(runs, func(a, b *probeRun) int { return cmp.Compare(figure(a), figure(b)) })
	return runs[(len(runs)-1)/2], nil
}

// pathCost is what the path itself costs a probe's requests, from the same probe (the
// same requests in the same order) on a device that takes no time.
type pathCost struct {
	rate float64 // requests (commits) per second at the probe's depth
	// at queue depth 1, each request's own time by index (a request cannot return
	// before the path has carried it, whatever the model says), and a commit's flush
	lats, flushes []time.Duration
}

func pathCostOf(p probe, null *probeRun) pathCost {
	c := pathCost{rate: float64(null.n) / null.elapsed.Seconds()}
	if p.depth > 1 {
		return c
	}
	c.lats = null.lats
	if p.fsync {
		c.flushes = null.flushes
		c.lats = make([]time.Duration, len(null.lats))
		for i, l := range null.lats {
			if i < len(null.flushes) {
				l -= null.flushes[i]
			}
			c.lats[i] = l
		}
	}
	return c
}

// floor is request i's least time (op: its write or read, or OpFlush: its commit's
// flush); past the null run's requests, the median of its.
func (c pathCost) floor(i int, op device.Op) time.Duration {
	ds := c.lats
	if op == device.OpFlush {
		ds = c.flushes
	}
	if len(ds) == 0 {
		return 0
	}
	if i < len(ds) {
		return ds[i]
	}
	return medianOf(ds)
}

// evaluate compares one round of a probe with its model: the probe's metric (and at
// queue depth 1 the median latency too), each with the best this host's path could
// give (the model's figure where the path's own costs do not show).
func evaluate(newModel func() (device.Model, error), p probe, run *probeRun, cost pathCost, pathName string) ([]ProbeResult, error) {
	fresh, err := newModel()
	if err != nil {
		return nil, err
	}
	// The gap between a request's completion and its worker's next request: on a
	// mount the reply's way back to the program and the next request's way in,
	// about one floor; on the preload path the arrival is stamped as the program
	// makes the call, so only what the program did in between, as measured.
	gap := time.Duration(run.floorUs * 1e3)
	if pathName == PathPreload {
		gap = medianOf(run.gaps)
	}
	modelVal, modelLats := simulate(fresh, p, run.reqs, gap, nil)
	if math.IsInf(modelVal, 0) { // the null device: no time at all
		modelVal = 0
	}
	best := modelVal
	var bestLats []time.Duration
	if p.depth > 1 {
		best = min(modelVal, cost.rate)
	} else {
		again, err := newModel()
		if err != nil {
			return nil, err
		}
		best, bestLats = simulate(again, p, run.reqs, gap, cost.floor)
		if math.IsInf(best, 0) {
			best = 0
		}
	}
	r := ProbeResult{Probe: p.name, Metric: p.metric, Model: modelVal, HostBest: best, Requests: run.n}
	var median *ProbeResult
	switch p.metric {
	case "mean_latency_us":
		r.Measured = us(run.latSum / time.Duration(max(run.n, 1)))
		// The median too: on a shared host another process's bursts put a tail on
		// the mean that is the host's, not the device's.
		median = &ProbeResult{Probe: p.name, Metric: "p50_latency_us", Model: us(medianOf(modelLats)),
			HostBest: us(medianOf(bestLats)), Measured: us(medianOf(run.lats)), Requests: run.n}
	case "iops", "fsyncs_per_s":
		r.Measured = float64(run.n) / run.elapsed.Seconds()
	case "mb_per_s":
		r.Measured = float64(run.n*p.size) / run.elapsed.Seconds() / 1e6
	}
	var late [3]float64
	if h := run.dev.TimingError; h != nil && h.Count() > 0 {
		late = [3]float64{us(h.Quantile(0.5)), us(h.Quantile(0.9)), us(h.Quantile(0.99))}
	}
	results := []ProbeResult{r}
	if median != nil {
		results = append(results, *median)
	}
	for i := range results {
		x := &results[i]
		if x.Model != 0 {
			x.ErrorPct = (x.Measured - x.Model) / x.Model * 100
			x.HostLimited = math.Abs(x.HostBest-x.Model)/x.Model > hostTolerance
		}
		if x.HostBest != 0 {
			x.ErrorVsHostBestPct = (x.Measured - x.HostBest) / x.HostBest * 100
		}
		x.LateP50Us, x.LateP90Us, x.LateP99Us = late[0], late[1], late[2]
	}
	return results, nil
}

// medianRound returns the round whose first figure's error is the median of the
// rounds' (an odd number of them, or the lower of the two middle ones), with Rounds
// set.
func medianRound(rounds [][]ProbeResult) []ProbeResult {
	order := make([]int, len(rounds))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(rounds[a][0].ErrorPct, rounds[b][0].ErrorPct)
	})
	chosen := slices.Clone(rounds[order[(len(order)-1)/2]])
	for i := range chosen {
		chosen[i].Rounds = len(rounds)
	}
	return chosen
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// probeRun is what one probe did through the mount.
type probeRun struct {
	reqs    []device.Request // in issue order (file offsets = device offsets: one file)
	n       int64
	elapsed time.Duration
	latSum  time.Duration
	lats    []time.Duration // each request's latency, at queue depth 1
	gaps    []time.Duration // from a worker's return to its next request
	flushes []time.Duration // an fsync probe's flushes (part of lats)
	floorUs float64
	dev     DeviceStats // as mounted, then (preload) as stopped, with the timing error
}

// runProbe mounts spec afresh, runs p against a sparse file of span bytes and stops.
// On the preload path the probe runs in C with the shim's client code (one thread,
// p.depth requests in flight); threads runs it from p.depth goroutines instead, each
// through the Go client, as a database's synchronous threads would (the thread ceiling).
func runProbe(ctx context.Context, dir, spec string, p probe, span int64, budget time.Duration, opts Options, threads bool) (*probeRun, error) {
	work, err := os.MkdirTemp(dir, p.name+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	d := Device{Name: p.name, Spec: spec, BackingDir: filepath.Join(work, "backing"), MountPoint: filepath.Join(work, "mnt")}
	if err := os.MkdirAll(d.BackingDir, 0o755); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(0x7469657262656e63, uint64(len(p.name))))
	blocks := span / p.size
	reqs := make([]device.Request, p.max)
	for i := range reqs {
		off := rng.Int64N(blocks) * p.size
		if p.sequential {
			off = int64(i) * p.size % (blocks * p.size)
		}
		reqs[i] = device.Request{Op: p.op, Offset: off, Size: p.size, File: 1, Direct: true}
	}
	// The probe file exists before the mount, so the layout puts it at device offset 0
	// in one piece and file offsets are device offsets.
	if err := writeProbeFile(filepath.Join(d.BackingDir, "probe"), span, p, reqs); err != nil {
		return nil, err
	}
	opts.AllowTooFast = true
	e, err := Start(ctx, []Device{d}, opts)
	if err != nil {
		return nil, err
	}
	defer e.Stop()
	run := &probeRun{floorUs: e.Devices()[0].FloorUs, dev: e.Devices()[0], reqs: reqs}
	if e.Path() == PathPreload && !threads {
		err = probeInC(ctx, e, d, p, budget, run)
	} else {
		err = probeInGo(ctx, e, d, p, budget, run)
	}
	if err != nil {
		return nil, err
	}
	if run.n == 0 {
		return nil, errors.New("no request completed")
	}
	run.reqs = run.reqs[:run.n]
	final, err := e.Stop()
	if err != nil {
		return nil, err
	}
	if len(final) == 1 {
		if final[0].TimingError != nil {
			run.dev.TimingError = final[0].TimingError
		}
		if r := final[0].Ring; r != nil && r.Failed != "" {
			return nil, fmt.Errorf("preload ring: %s", r.Failed)
		}
	}
	return run, nil
}

// writeProbeFile makes the sparse probe file and writes, once, every block the probe
// will write: a database writes pages its files already hold, and the backing file
// system's block allocation (longer than a fast device's write on a small host) is the
// host's cost, not the device's.
func writeProbeFile(path string, span int64, p probe, reqs []device.Request) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	err = f.Truncate(span)
	if err == nil && p.op == device.OpWrite {
		zero := make([]byte, p.size)
		seen := make(map[int64]bool, len(reqs))
		for _, r := range reqs {
			if !seen[r.Offset] {
				seen[r.Offset] = true
				if _, err = f.WriteAt(zero, r.Offset); err != nil {
					break
				}
			}
		}
	}
	return errors.Join(err, f.Close())
}

// probeInC runs p on the preload path from C (preload.Client.Probe).
func probeInC(ctx context.Context, e *Emulator, d Device, p probe, budget time.Duration, run *probeRun) error {
	fd, c, closeBacking, err := openBacking(e, d)
	if err != nil {
		return err
	}
	defer closeBacking()
	offs := make([]int64, len(run.reqs))
	for i, r := range run.reqs {
		offs[i] = r.Offset
	}
	res, err := c.Probe(ctx, preload.ProbeSpec{FD: fd, Write: p.op == device.OpWrite, Fsync: p.fsync, Size: p.size,
		Offsets: offs, Depth: p.depth, Budget: budget, Flags: preload.IOFlags{Direct: true}})
	if err != nil {
		return err
	}
	run.n = int64(res.N)
	run.elapsed = res.Elapsed
	for _, l := range res.Lats {
		run.latSum += l
	}
	if p.depth == 1 {
		run.lats = res.Lats
	}
	run.gaps = res.Gaps
	run.flushes = res.Flushes
	return nil
}

// openBacking opens the probe's backing file and attaches a client of the ring in this
// process: how the preload path reaches the device (the shim and the VFS do the same
// inside the engine).
func openBacking(e *Emulator, d Device) (fd int, c *preload.Client, closeBacking func(), err error) {
	fd, err = syscall.Open(filepath.Join(d.BackingDir, "probe"), syscall.O_RDWR, 0)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("open probe file: %w", err)
	}
	if c, err = preload.Attach(e.RingPath()); err != nil {
		syscall.Close(fd)
		return 0, nil, nil, err
	}
	return fd, c, func() { c.Detach(); syscall.Close(fd) }, nil
}

// probeInGo runs p from p.depth goroutines, each issuing its next request when its
// last returns: through the mount on FUSE, through the Go client on preload.
func probeInGo(ctx context.Context, e *Emulator, d Device, p probe, budget time.Duration, run *probeRun) error {
	issue, closeProbe, err := openProbe(e, d, p)
	if err != nil {
		return err
	}
	defer closeProbe()
	var next atomic.Int64
	var latSum atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var gapMu sync.Mutex
	deadline := time.Now().Add(budget)
	start := time.Now()
	var wg sync.WaitGroup
	for range p.depth {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := alignedBuffer(int(p.size))
			var gaps []time.Duration
			defer func() {
				gapMu.Lock()
				run.gaps = append(run.gaps, gaps...)
				gapMu.Unlock()
			}()
			var last time.Time
			// the first request goes whatever the budget, so a probe always measures
			for (next.Load() == 0 || time.Now().Before(deadline)) && ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(len(run.reqs)) {
					next.Add(-1)
					return
				}
				r := run.reqs[i]
				t := time.Now()
				if !last.IsZero() {
					gaps = append(gaps, t.Sub(last))
				}
				flush, err := issue(buf, r)
				last = time.Now()
				lat := last.Sub(t)
				latSum.Add(int64(lat))
				if p.depth == 1 {
					run.lats = append(run.lats, lat)
					if p.fsync {
						run.flushes = append(run.flushes, flush)
					}
				}
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
			}
		}()
	}
	wg.Wait()
	run.elapsed = time.Since(start)
	run.n = next.Load()
	run.latSum = time.Duration(latSum.Load())
	closeProbe()
	return firstErr
}

// openProbe opens the probe file the way p's path reaches the device and returns the
// function that issues one request (a write followed by fdatasync for an fsync
// probe). FUSE: through the mount, O_DIRECT. Preload: the backing file itself, through
// the ring's client code in this process (what the shim and the SQLite VFS run), with
// the request marked O_DIRECT for the model (the backing file system need not take
// O_DIRECT; a mount strips it too).
func openProbe(e *Emulator, d Device, p probe) (func(buf []byte, r device.Request) (time.Duration, error), func(), error) {
	if e.Path() == PathPreload {
		fd, c, closeBacking, err := openBacking(e, d)
		if err != nil {
			return nil, nil, err
		}
		fl := preload.IOFlags{Direct: true}
		issue := func(buf []byte, r device.Request) (flush time.Duration, err error) {
			if r.Op == device.OpRead {
				_, err = c.Pread(0, fd, buf, r.Offset, fl)
			} else {
				_, err = c.Pwrite(0, fd, buf, r.Offset, fl)
				if err == nil && p.fsync {
					t := time.Now()
					err = c.Fdatasync(0, fd, fl)
					flush = time.Since(t)
				}
			}
			return flush, err
		}
		var once sync.Once
		return issue, func() { once.Do(closeBacking) }, nil
	}
	fd, err := syscall.Open(filepath.Join(d.MountPoint, "probe"), syscall.O_RDWR|syscall.O_DIRECT, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open probe file: %w", err)
	}
	issue := func(buf []byte, r device.Request) (flush time.Duration, err error) {
		if r.Op == device.OpRead {
			_, err = syscall.Pread(fd, buf, r.Offset)
		} else {
			_, err = syscall.Pwrite(fd, buf, r.Offset)
			if err == nil && p.fsync {
				t := time.Now()
				err = syscall.Fdatasync(fd)
				flush = time.Since(t)
			}
		}
		return flush, err
	}
	var once sync.Once
	return issue, func() { once.Do(func() { syscall.Close(fd) }) }, nil
}

// simulate runs reqs through m in virtual time as the probe ran them (closed loop at
// the probe's depth) and returns the probe's metric and each request's latency. Each worker
// issues its next request gap after its last one completed: a program's next request
// never arrives the instant the last one ends, and a disk notices (a sequential write
// that misses the streaming head waits a revolution).
//
// floor, if not nil, is the least time request i takes (op: its own, or OpFlush for
// its commit's flush), the path's own cost: simulate then gives the best a path with
// those costs could measure.
func simulate(m device.Model, p probe, reqs []device.Request, gap time.Duration, floor func(i int, op device.Op) time.Duration) (metric float64, lats []time.Duration) {
	if floor == nil {
		floor = func(int, device.Op) time.Duration { return 0 }
	}
	if len(reqs) == 0 {
		return 0, nil
	}
	free := make([]time.Duration, p.depth) // when each of the probe's workers is free
	var latSum, last time.Duration
	for i, r := range reqs {
		w := 0
		for i := range free {
			if free[i] < free[w] {
				w = i
			}
		}
		at := free[w]
		done := max(m.Submit(at, r), at+floor(i, r.Op))
		if p.fsync { // the flush is the worker's next request
			fat := done + gap
			done = max(m.Submit(fat, device.Request{Op: device.OpFlush, File: r.File, Direct: r.Direct}), fat+floor(i, device.OpFlush))
		}
		latSum += done - at
		lats = append(lats, done-at)
		free[w] = done + gap
		last = max(last, done)
	}
	n := float64(len(reqs))
	switch p.metric {
	case "mean_latency_us":
		return us(latSum / time.Duration(len(reqs))), lats
	case "mb_per_s":
		return n * float64(p.size) / last.Seconds() / 1e6, lats
	}
	return n / last.Seconds(), lats
}

func medianOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func alignedBuffer(n int) []byte {
	b := make([]byte, n+4096)
	off := (4096 - int(uintptr(unsafe.Pointer(&b[0]))%4096)) % 4096
	return b[off : off+n]
}
