package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/monitor"
	"tierbench/internal/placement"
	"tierbench/internal/verdict"
)

// monitorFlags sample the machine, the server and the engine through a run (--sample)
// and serve them to Prometheus (--metrics-addr). Until the run lifecycle moves into
// internal/, only `oltp run` has them; internal/monitor's doc says what a command calls.
type monitorFlags struct {
	sample, metricsAddr string
	serverPID           int

	interval time.Duration
	exporter *monitor.Exporter
}

func (mf *monitorFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&mf.sample, "sample", monitor.DefaultInterval.String(), "how often to sample the host, the server's processes, the disks, emulated devices and the engine into OUT/metrics.jsonl and .csv (e.g. 1s, 500ms), or off")
	f.StringVar(&mf.metricsAddr, "metrics-addr", "", "serve throughput, latency and the samples to Prometheus at http://HOST:PORT/metrics while the run goes (e.g. 127.0.0.1:9187)")
	f.IntVar(&mf.serverPID, "server-pid", 0, "process id of the server given by --dsn, when it runs on this machine: its process tree's CPU and memory are sampled")
}

// prepare checks the flags and starts serving --metrics-addr before the engine opens,
// so that a bad flag costs no server start. Call close when done.
func (mf *monitorFlags) prepare(dsn string) error {
	d, err := monitor.ParseSample(mf.sample)
	if err != nil {
		return err
	}
	mf.interval = d
	if mf.serverPID != 0 && dsn == "" {
		return fmt.Errorf("--server-pid %d: tierbench knows the process of the server it runs; give --server-pid with --dsn", mf.serverPID)
	}
	if mf.serverPID < 0 {
		return fmt.Errorf("--server-pid %d: give a process id above 0", mf.serverPID)
	}
	if mf.metricsAddr != "" {
		exp, err := monitor.Listen(mf.metricsAddr)
		if err != nil {
			return err
		}
		mf.exporter = exp
	}
	return nil
}

// close stops serving --metrics-addr.
func (mf *monitorFlags) close() {
	if mf.exporter != nil {
		mf.exporter.Close()
		mf.exporter = nil
	}
}

// runMonitor is a started monitor and the observer the runner calls.
type runMonitor struct {
	mon      *monitor.Monitor
	observer metrics.Observer
	summary  *monitor.Summary
	stopped  bool
}

// start begins sampling the opened engine's run into out; nil when --sample off and
// no --metrics-addr (then only the exporter observes the run).
func (mf *monitorFlags) start(ctx context.Context, o *openedEngine, out string) (*runMonitor, error) {
	var observers metrics.Observers
	if mf.exporter != nil {
		observers = append(observers, mf.exporter)
	}
	if mf.interval == 0 {
		if len(observers) == 0 {
			return nil, nil
		}
		return &runMonitor{observer: observers}, nil
	}
	cfg := monitor.Config{Interval: mf.interval, Dir: out}
	host, err := monitor.NewHost("")
	if err != nil {
		return nil, err
	}
	cfg.Sources = append(cfg.Sources, host)
	targets := []monitor.Process{{Who: "tierbench", PID: os.Getpid()}}
	if srv, ok := o.eng.(engine.Server); ok {
		targets = append(targets, monitor.Process{Who: "server", PID: srv.ServerPID(), Tree: true})
	} else if mf.serverPID > 0 {
		targets = append(targets, monitor.Process{Who: "server", PID: mf.serverPID, Tree: true})
	}
	procs, err := monitor.NewProcesses("", targets...)
	if err != nil {
		return nil, fmt.Errorf("--server-pid: %w", err)
	}
	cfg.Sources = append(cfg.Sources, procs)
	if o.cfg.DSN == "" {
		storage, err := monitor.NewStorage("", "", []monitor.Directory{
			{Label: "data", Path: o.cfg.Dir}, {Label: "wal", Path: o.cfg.WALDir}, {Label: "temp", Path: o.cfg.TempDir}})
		if err != nil {
			return nil, err
		}
		cfg.Sources = append(cfg.Sources, storage)
	}
	if o.placed.Emulated() {
		cfg.Sources = append(cfg.Sources, monitor.NewEmulated(o.emulatedDevices))
	}
	if eng, ok, err := monitor.NewEngine(ctx, o.eng); err != nil {
		cfg.NotSampled = append(cfg.NotSampled, monitor.Unavailable{What: "the engine's statistics", Why: err.Error()})
	} else if ok {
		cfg.Sources = append(cfg.Sources, eng)
	}
	mon, err := monitor.New(cfg)
	if err != nil {
		return nil, err
	}
	if mf.exporter != nil {
		mf.exporter.Watch(mon)
	}
	mon.Start()
	return &runMonitor{mon: mon, observer: append(observers, mon)}, nil
}

// emulatedDevices are the emulated tiers' counters for the monitor.
func (o *openedEngine) emulatedDevices() ([]monitor.EmulatedDevice, error) {
	stats, err := o.placed.Stats()
	if err != nil {
		return nil, err
	}
	out := make([]monitor.EmulatedDevice, 0, len(stats))
	for _, d := range stats {
		out = append(out, monitor.EmulatedDevice{Name: d.Name, Reads: d.Reads, Writes: d.Writes, Flushes: d.Flushes,
			ReadBytes: d.ReadBytes, WriteBytes: d.WriteBytes, Busy: d.Busy,
			Latency: d.Latency.Mean() * time.Duration(d.Latency.Count()), QueueDepth: d.QueueDepth,
			ReadLatency: d.ReadLatency.Mean() * time.Duration(d.ReadLatency.Count())})
	}
	return out, nil
}

// verdictFacts are what the bottleneck verdict needs to know of the run's files: the
// emulated tiers and the classes each holds (the monitor's storage names the disks
// under directories).
func (o *openedEngine) verdictFacts(embedded bool) verdict.Facts {
	f := verdict.Facts{Embedded: embedded}
	plan := o.placed.Plan()
	if plan == nil {
		return f
	}
	for _, t := range plan.Tiers {
		if !t.Emulated() {
			continue
		}
		vt := verdict.Tier{Name: t.Name, Spec: t.Spec}
		for _, c := range placement.AllClasses {
			if pt, ok := plan.Tier(c); ok && pt.Name == t.Name {
				vt.Classes = append(vt.Classes, string(c))
			}
		}
		f.Tiers = append(f.Tiers, vt)
	}
	return f
}

// Observer is what the runner calls; nil without a monitor.
func (r *runMonitor) Observer() metrics.Observer {
	if r == nil {
		return nil
	}
	return r.observer
}

// stop ends sampling (before the engine closes: the sources read it) and returns the
// summary; a file that could not be written is reported on warn. Safe to call twice.
func (r *runMonitor) stop(warn io.Writer) *monitor.Summary {
	if r == nil || r.mon == nil || r.stopped {
		return r.summaryOrNil()
	}
	r.stopped = true
	sum, err := r.mon.Stop()
	if err != nil {
		fmt.Fprintf(warn, "warning: %v\n", err)
	}
	r.summary = sum
	return sum
}

func (r *runMonitor) summaryOrNil() *monitor.Summary {
	if r == nil {
		return nil
	}
	return r.summary
}
