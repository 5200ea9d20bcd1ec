package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"tierbench/internal/energy"
	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/monitor"
	"tierbench/internal/placement"
	"tierbench/internal/result"
	"tierbench/internal/rundir"
)

// Run is a run in progress: its output directory locked, the earlier run's files set
// aside, its tiers placed, its engine open and its monitors started. Finish ends it.
// It is the workload's workload.Env.
type Run struct {
	cfg    *Config
	io     IO
	eng    engine.Engine
	ecfg   engine.Config
	dir    string
	placed *placement.Placed
	lock   *rundir.Lock
	aside  *rundir.Aside
	rec    *energy.Recorder
	cpu0   cpuTimes // the host's CPU times when the recorder started
	mon    Monitor
	exp    *monitor.Exporter // --metrics-addr
	// embedded says the workload's work runs inside tierbench: an embedded engine, or
	// no engine at all (the file workload), for the verdict.
	embedded bool

	started map[string]time.Time // windows begun, by label
	windows []energy.Window
	// checkpointed says that a Checkpoint of the phase's result reached its file.
	checkpointed bool
	finished     bool
	result       error
}

// Open starts a run of cfg: it locks cfg.Out against a second command (rundir.Lock),
// sets the files the phase writes (and the traces of --record-trace) of an earlier
// command aside into OUT/earlier/N, mounts the emulated tiers, places the engine's
// files, opens the engine (or, without one, takes the directory to run in), and starts
// the energy recorder and the monitor (cfg.Monitor, or the sampler cfg.Sample asks
// for). --metrics-addr is listened on before anything starts, so that an address in
// use costs no server start. On error nothing is left mounted, running or listening,
// the earlier files are back and the directory is unlocked.
func Open(ctx context.Context, cfg *Config, out IO) (_ *Run, err error) {
	if out.Stdout == nil {
		out.Stdout = io.Discard
	}
	if out.Stderr == nil {
		out.Stderr = io.Discard
	}
	if err := rundir.EnsureWritable("--out", cfg.Out); err != nil {
		return nil, err
	}
	r := &Run{cfg: cfg, io: out, dir: cfg.Dir, started: map[string]time.Time{}, mon: cfg.Monitor, embedded: cfg.Engine == nil}
	if r.mon == nil && cfg.Sample > 0 {
		r.mon = newSampler(cfg)
	}
	if r.lock, err = rundir.Acquire(cfg.Out, out.Command); err != nil {
		return nil, fmt.Errorf("--out %w", err)
	}
	results := cfg.Request.Results
	if cfg.Placement.Trace {
		results = append(results[:len(results):len(results)], placement.TracesDir)
	}
	if slices.Contains(results, result.File) {
		// `tierbench report` drew the earlier result: its page goes with it.
		results = append(results[:len(results):len(results)], rundir.ReportFile, rundir.FiguresDir)
	}
	if r.aside, err = rundir.SetAside(cfg.Out, results...); err != nil {
		r.lock.Release()
		return nil, fmt.Errorf("--out %s: %w", cfg.Out, err)
	}
	defer func() {
		if err != nil {
			if r.exp != nil {
				r.exp.Close()
			}
			r.aside.Restore()
			r.lock.Release()
		}
	}()
	if cfg.MetricsAddr != "" {
		if r.exp, err = monitor.Listen(cfg.MetricsAddr); err != nil {
			return nil, err
		}
	}
	if err := r.place(ctx); err != nil {
		return nil, err
	}
	rec, err := energy.New(cfg.Energy)
	if err != nil {
		r.stop()
		return nil, err
	}
	r.rec, r.cpu0 = rec, readCPUTimes()
	if r.mon == nil {
		r.rec.Sample(time.Now(), math.NaN())
		return r, nil
	}
	// The monitor's first sample is the energy record's first: their intervals are
	// the same.
	if err := r.mon.Start(ctx, r, r.rec.Sample); err != nil {
		r.rec.Close()
		r.stop()
		return nil, err
	}
	return r, nil
}

// place mounts the tiers and opens the engine on them.
func (r *Run) place(ctx context.Context) error {
	cfg := r.cfg
	opts := cfg.Placement
	opts.OutDir = cfg.Out
	placed, err := cfg.Plan.Start(ctx, opts)
	if err != nil {
		return err
	}
	r.placed = placed
	if cfg.Engine == nil {
		if d := placed.TierDir(placement.Data); d != "" {
			r.dir = d
		}
		return nil
	}
	ecfg, err := openConfig(cfg, placed)
	if err != nil {
		placed.Stop()
		return err
	}
	eng, err := engine.Open(ctx, ecfg)
	if err != nil {
		placed.Stop()
		return err // engines name themselves in their errors
	}
	r.eng, r.ecfg = eng, ecfg
	if err := placed.WatchEngineIO(ctx, eng); err != nil {
		eng.Close()
		placed.Stop()
		return err
	}
	_, managed := eng.(engine.Server)
	r.embedded = !managed && ecfg.DSN == ""
	if managed || len(ecfg.Settings) > 0 {
		if info, err := eng.Info(ctx); err == nil {
			if acl := info.Settings["server_user_acl"]; acl != "" {
				r.note(fmt.Sprintf("the server's user may now pass through a directory of yours (an ACL entry: %s); result files record it", acl))
			}
			// A setting the engine refused or ignored failed the open; one it cannot
			// report is said here, and recorded (docs/engines.md, "Settings: --set").
			if u := engine.Unverified(info.Applied); len(u) > 0 {
				r.note(fmt.Sprintf("%s could not confirm these settings, recorded as unverified: %s", info.Name, strings.Join(u, "; ")))
			}
		}
	}
	return nil
}

// stop closes the engine (removing its directory when it created it and left it
// empty, unless kept) and then unmounts the tiers, in that order: a server must let
// go of the mounts first. It returns the storage section, nil when nothing was
// placed.
func (r *Run) stop() (*result.Storage, error) {
	var closeErr error
	if r.eng != nil {
		// the engine's own I/O counters against the devices', while it still answers
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		closeErr = errors.Join(r.placed.CheckEngineIO(ctx), r.eng.Close())
		cancel()
		if !r.ecfg.Keep && r.ecfg.DSN == "" {
			os.Remove(r.ecfg.Dir) // fails harmlessly when the directory is not empty
		}
	}
	st, err := r.placed.Finish(r.cfg.GridIntensity)
	if !r.cfg.Record {
		st = nil
	}
	if closeErr != nil { // the engine names itself
		err = errors.Join(closeErr, err)
	}
	return st, err
}

func (r *Run) note(text string) {
	if r.io.Note != nil {
		r.io.Note(text)
		return
	}
	fmt.Fprintf(r.io.Stderr, "note: %s\n", text)
}

// Engine is the open engine; nil for a workload without one.
func (r *Run) Engine() engine.Engine { return r.eng }

// EngineConfig is the configuration the engine was opened with, placement applied.
func (r *Run) EngineConfig() engine.Config { return r.ecfg }

// IgnoreLimits is --ignore-limits.
func (r *Run) IgnoreLimits() bool { return r.cfg.IgnoreLimits }

// Dir is the directory a workload without an engine runs in.
func (r *Run) Dir() string { return r.dir }

// Out is the output directory.
func (r *Run) Out() string { return r.cfg.Out }

// Stdout and Stderr are where the run writes for people; Progress takes progress
// bars (nil without a terminal).
func (r *Run) Stdout() io.Writer   { return r.io.Stdout }
func (r *Run) Stderr() io.Writer   { return r.io.Stderr }
func (r *Run) Progress() io.Writer { return r.io.Progress }

// Mark notes that the measured window label starts or ends now: the monitor gets the
// mark, and a window that ends becomes one of the energy section's windows.
func (r *Run) Mark(label string, start bool) {
	now := time.Now()
	if m := r.mon; m != nil {
		m.Mark(label, start, now)
	}
	if start {
		r.started[label] = now
		return
	}
	if t0, ok := r.started[label]; ok {
		delete(r.started, label)
		r.windows = append(r.windows, energy.Window{Label: label, Start: t0, End: now})
	}
}

// IOSampler reads the engine's I/O counters (when it has them) and the emulated
// devices' for the per-interval MB/s of runs of virtual users; nil when there is
// neither.
func (r *Run) IOSampler() func(ctx context.Context) (metrics.IOSample, error) {
	counter, _ := r.eng.(engine.IOCounter)
	if counter == nil && !r.placed.Emulated() {
		return nil
	}
	return func(ctx context.Context) (metrics.IOSample, error) {
		var s metrics.IOSample
		if counter != nil {
			b, err := counter.IOBytes(ctx)
			if err != nil {
				return s, err
			}
			s.Engine = &metrics.IOCount{Read: b.Read, Written: b.Written}
		}
		devs, err := r.placed.Stats()
		if err != nil {
			return s, fmt.Errorf("emulated devices: %w", err)
		}
		for _, d := range devs {
			s.Devices = append(s.Devices, metrics.DeviceIO{Name: d.Name, Read: d.ReadBytes, Written: d.WriteBytes, Busy: d.Busy})
		}
		s.At = time.Now()
		return s, nil
	}
}

// Observer sees the interval records of workloads that have them, for the Prometheus
// exposition of --metrics-addr; nil when nothing is served.
func (r *Run) Observer() metrics.Observer {
	if r.exp == nil {
		return nil
	}
	return r.exp
}
