//go:build linux

package emulator

import (
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
	null, err := runProbe(ctx, dir, NullSpec, probe{name: "ceiling", op: device.OpRead, size: 4 << 10, depth: 32, max: 200000}, 1<<30, 300*time.Millisecond, opts.Options)
	if err != nil {
		return nil, err
	}
	cal.FloorUs = null.floorUs
	cal.CeilingIOPS = float64(null.n) / null.elapsed.Seconds()

	for _, p := range probes {
		if err := ctx.Err(); err != nil {
			return cal, err
		}
		run, err := runProbe(ctx, dir, spec, p, span, budget, opts.Options)
		if err != nil {
			return cal, fmt.Errorf("probe %s: %w", p.name, err)
		}
		fresh, err := buildModel(reg, spec)
		if err != nil {
			return cal, err
		}
		if run.floorUs > 0 && run.floorUs < cal.FloorUs {
			cal.FloorUs = run.floorUs
		}
		if cal.CompensationUs == 0 {
			cal.CompensationUs = us(run.dev.Compensation)
			cal.CompensationPerMiBUs = [2]float64{us(run.dev.CompensationPerMiB[0]), us(run.dev.CompensationPerMiB[1])}
		}
		// The gap between a request's completion and its worker's next request: on a
		// mount the reply's way back to the program and the next request's way in,
		// about one floor; on the preload path the arrival is stamped as the program
		// makes the call, so only what the program did in between, as measured.
		gap := time.Duration(run.floorUs * 1e3)
		if opts.Path == PathPreload {
			gap = medianOf(run.gaps)
		}
		modelVal, modelIOPS, modelLats := simulate(fresh, p, run.reqs, gap)
		if math.IsInf(modelVal, 0) { // the null device: no time at all
			modelVal = 0
		}
		r := ProbeResult{Probe: p.name, Metric: p.metric, Model: modelVal, Requests: run.n}
		var median *ProbeResult
		switch p.metric {
		case "mean_latency_us":
			r.Measured = us(run.latSum / time.Duration(max(run.n, 1)))
			// The median too: on a shared host another process's bursts put a tail on
			// the mean that is the host's, not the device's.
			median = &ProbeResult{Probe: p.name, Metric: "p50_latency_us", Model: us(medianOf(modelLats)),
				Measured: us(medianOf(run.lats)), Requests: run.n}
		case "iops":
			r.Measured = float64(run.n) / run.elapsed.Seconds()
		case "mb_per_s":
			r.Measured = float64(run.n*p.size) / run.elapsed.Seconds() / 1e6
		case "fsyncs_per_s":
			r.Measured = float64(run.n) / run.elapsed.Seconds()
		}
		if r.Model != 0 {
			r.ErrorPct = (r.Measured - r.Model) / r.Model * 100
		}
		// A rate above the path's ceiling, or a latency below what the path adds
		// itself (taken off on a mount, absorbed on the preload path), is the host's
		// limit, not the emulation's error.
		overhead := cal.CompensationUs
		if opts.Path == PathPreload {
			overhead = cal.FloorUs
		}
		r.HostLimited = modelIOPS > 0.8*cal.CeilingIOPS ||
			(p.metric == "mean_latency_us" && r.Model < overhead)
		if late := run.dev.TimingError; late != nil && late.Count() > 0 {
			r.LateP50Us, r.LateP90Us, r.LateP99Us = us(late.Quantile(0.5)), us(late.Quantile(0.9)), us(late.Quantile(0.99))
		}
		results := []ProbeResult{r}
		if median != nil {
			if median.Model != 0 {
				median.ErrorPct = (median.Measured - median.Model) / median.Model * 100
			}
			median.HostLimited = r.HostLimited
			results = append(results, *median)
		}
		for _, r := range results {
			cal.Probes = append(cal.Probes, r)
			if opts.Progress != nil {
				fmt.Fprintf(opts.Progress, "%-18s %-16s model %10.1f  measured %10.1f  error %+6.1f%%\n", r.Probe, r.Metric, r.Model, r.Measured, r.ErrorPct)
			}
		}
	}
	// the floor is the least any of the mounts measured
	cal.TooFast = spec != NullSpec && cal.ModelRead8KUs < tooFastFactor*cal.FloorUs
	return cal, nil
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
	floorUs float64
	dev     DeviceStats // as mounted, then (preload) as stopped, with the timing error
}

// runProbe mounts spec afresh, runs p against a sparse file of span bytes and stops.
func runProbe(ctx context.Context, dir, spec string, p probe, span int64, budget time.Duration, opts Options) (*probeRun, error) {
	work, err := os.MkdirTemp(dir, p.name+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	d := Device{Name: p.name, Spec: spec, BackingDir: filepath.Join(work, "backing"), MountPoint: filepath.Join(work, "mnt")}
	if err := os.MkdirAll(d.BackingDir, 0o755); err != nil {
		return nil, err
	}
	// The probe file exists before the mount, so the layout puts it at device offset 0
	// in one piece and file offsets are device offsets.
	if err := os.WriteFile(filepath.Join(d.BackingDir, "probe"), nil, 0o644); err != nil {
		return nil, err
	}
	if err := os.Truncate(filepath.Join(d.BackingDir, "probe"), span); err != nil {
		return nil, err
	}
	opts.AllowTooFast = true
	e, err := Start(ctx, []Device{d}, opts)
	if err != nil {
		return nil, err
	}
	defer e.Stop()
	run := &probeRun{floorUs: e.Devices()[0].FloorUs, dev: e.Devices()[0]}
	issue, closeProbe, err := openProbe(e, d, p)
	if err != nil {
		return nil, err
	}
	defer closeProbe()

	rng := rand.New(rand.NewPCG(0x7469657262656e63, uint64(len(p.name))))
	blocks := span / p.size
	run.reqs = make([]device.Request, p.max)
	for i := range run.reqs {
		off := rng.Int64N(blocks) * p.size
		if p.sequential {
			off = int64(i) * p.size % (blocks * p.size)
		}
		run.reqs[i] = device.Request{Op: p.op, Offset: off, Size: p.size, File: 1, Direct: true}
	}

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
				err := issue(buf, r)
				last = time.Now()
				lat := last.Sub(t)
				latSum.Add(int64(lat))
				if p.depth == 1 {
					run.lats = append(run.lats, lat)
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
	run.reqs = run.reqs[:run.n]
	run.latSum = time.Duration(latSum.Load())
	if firstErr != nil {
		return nil, firstErr
	}
	if run.n == 0 {
		return nil, errors.New("no request completed")
	}
	closeProbe()
	final, err := e.Stop()
	if err != nil {
		return nil, err
	}
	if len(final) == 1 && final[0].TimingError != nil {
		run.dev.TimingError = final[0].TimingError
	}
	if len(final) == 1 && final[0].Ring != nil && final[0].Ring.Failed != "" {
		return nil, fmt.Errorf("preload ring: %s", final[0].Ring.Failed)
	}
	return run, nil
}

// openProbe opens the probe file the way p's path reaches the device and returns the
// function that issues one request (a write followed by fdatasync for an fsync
// probe). FUSE: through the mount, O_DIRECT. Preload: the backing file itself, through
// the ring's client code in this process (what the shim and the SQLite VFS run), with
// the request marked O_DIRECT for the model (the backing file system need not take
// O_DIRECT; a mount strips it too).
func openProbe(e *Emulator, d Device, p probe) (func(buf []byte, r device.Request) error, func(), error) {
	if e.Path() == PathPreload {
		fd, err := syscall.Open(filepath.Join(d.BackingDir, "probe"), syscall.O_RDWR, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("open probe file: %w", err)
		}
		c, err := preload.Attach(e.RingPath())
		if err != nil {
			syscall.Close(fd)
			return nil, nil, err
		}
		fl := preload.IOFlags{Direct: true}
		issue := func(buf []byte, r device.Request) error {
			var err error
			if r.Op == device.OpRead {
				_, err = c.Pread(0, fd, buf, r.Offset, fl)
			} else {
				_, err = c.Pwrite(0, fd, buf, r.Offset, fl)
				if err == nil && p.fsync {
					err = c.Fdatasync(0, fd, fl)
				}
			}
			return err
		}
		var once sync.Once
		return issue, func() { once.Do(func() { c.Detach(); syscall.Close(fd) }) }, nil
	}
	fd, err := syscall.Open(filepath.Join(d.MountPoint, "probe"), syscall.O_RDWR|syscall.O_DIRECT, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open probe file: %w", err)
	}
	issue := func(buf []byte, r device.Request) error {
		var err error
		if r.Op == device.OpRead {
			_, err = syscall.Pread(fd, buf, r.Offset)
		} else {
			_, err = syscall.Pwrite(fd, buf, r.Offset)
			if err == nil && p.fsync {
				err = syscall.Fdatasync(fd)
			}
		}
		return err
	}
	var once sync.Once
	return issue, func() { once.Do(func() { syscall.Close(fd) }) }, nil
}

// simulate runs reqs through m in virtual time as the probe ran them (closed loop at
// the probe's depth) and returns the probe's metric and the request rate. Each worker
// issues its next request gap after its last one completed: a program's next request
// never arrives the instant the last one ends, and a disk notices (a sequential write
// that misses the streaming head waits a revolution).
func simulate(m device.Model, p probe, reqs []device.Request, gap time.Duration) (metric, rate float64, lats []time.Duration) {
	if len(reqs) == 0 {
		return 0, 0, nil
	}
	free := make([]time.Duration, p.depth) // when each of the probe's workers is free
	var latSum, last time.Duration
	for _, r := range reqs {
		w := 0
		for i := range free {
			if free[i] < free[w] {
				w = i
			}
		}
		at := free[w]
		done := m.Submit(at, r)
		if p.fsync { // the flush is the worker's next request
			done = m.Submit(done+gap, device.Request{Op: device.OpFlush, File: r.File, Direct: r.Direct})
		}
		latSum += done - at
		lats = append(lats, done-at)
		free[w] = done + gap
		last = max(last, done)
	}
	n := float64(len(reqs))
	rate = n / last.Seconds()
	switch p.metric {
	case "mean_latency_us":
		return us(latSum / time.Duration(len(reqs))), rate, lats
	case "mb_per_s":
		return n * float64(p.size) / last.Seconds() / 1e6, rate, lats
	}
	return rate, rate, lats
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
