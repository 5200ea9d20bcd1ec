package lifecycle

import (
	"context"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/prometheus/procfs"

	"tierbench/internal/engine"
	"tierbench/internal/monitor"
	"tierbench/internal/placement"
	"tierbench/internal/result"
)

// Monitor samples the host, the engine and the devices during a run. The lifecycle
// starts it once the engine is open and the workload about to begin, passes it the
// workload's window marks, stops it when the workload ends (before the engine stops),
// and has it attach its section to the result. Runs whose settings sample (--sample)
// get the sampler of package monitor (newSampler); a caller may give its own
// (Config.Monitor).
type Monitor interface {
	// Start begins sampling run. sample, which the monitor calls at each of its
	// samples (the first included) with the host's CPU utilisation (0 to 1, steal left
	// out; NaN when unknown) over the interval ending then, feeds the energy section
	// (energy.Recorder.Sample) and returns each energy component's watts then.
	Start(ctx context.Context, run *Run, sample func(at time.Time, cpuBusy float64) map[string]float64) error
	// Mark notes that the measured window label starts (start) or ends at at.
	Mark(label string, start bool, at time.Time)
	// Stop takes the last sample (calling sample) and stops.
	Stop(at time.Time) error
	// Attach puts the monitor's section into s.
	Attach(s *result.Sections)
}

// sampler is the Monitor of package monitor: the host, tierbench's and the server's
// process trees, the disks under the directories of the run's files, the emulated
// devices and the engine's internals, every Config.Sample, into OUT/metrics.jsonl and
// metrics.csv, with the energy recorder's watts in each sample.
type sampler struct {
	cfg *Config
	mon *monitor.Monitor
	sum *monitor.Summary
}

func newSampler(cfg *Config) *sampler { return &sampler{cfg: cfg} }

// energySeries documents the watts the energy recorder adds to each sample.
var energySeries = []monitor.SeriesInfo{{Name: "energy.<component>.watts", Kind: monitor.Value, Unit: "watts",
	Help: "a component's average power over the interval ending at the sample (component: cpu, dram, base, a meter's name), measured or modelled as the energy section says; the storage devices' modelled power is in the energy section only"}}

func (s *sampler) Start(ctx context.Context, r *Run, sample func(time.Time, float64) map[string]float64) error {
	mc := monitor.Config{Interval: s.cfg.Sample, Dir: s.cfg.Out, Prefix: s.cfg.MetricsPrefix, Derived: energySeries,
		OnSample: func(smp *monitor.Sample) {
			for name, w := range sample(smp.At(), hostBusy(smp)) {
				smp.Values["energy."+engine.StatLabel(name)+".watts"] = math.Round(w*1000) / 1000
			}
		}}
	host, err := monitor.NewHost("")
	if err != nil {
		return err
	}
	mc.Sources = append(mc.Sources, host)
	targets := []monitor.Process{{Who: "tierbench", PID: os.Getpid()}}
	if srv, ok := r.eng.(engine.Server); ok {
		targets = append(targets, monitor.Process{Who: "server", PID: srv.ServerPID(), Tree: true})
	} else if s.cfg.ServerPID > 0 {
		targets = append(targets, monitor.Process{Who: "server", PID: s.cfg.ServerPID, Tree: true})
	}
	procs, err := monitor.NewProcesses("", targets...)
	if err != nil {
		return fmt.Errorf("--server-pid: %w", err)
	}
	mc.Sources = append(mc.Sources, procs)
	if dirs := r.realDirectories(); len(dirs) > 0 {
		disks, err := monitor.NewStorage("", "", dirs)
		if err != nil {
			return err
		}
		mc.Sources = append(mc.Sources, disks)
	}
	if r.placed.Emulated() {
		mc.Sources = append(mc.Sources, monitor.NewEmulated(r.emulatedDevices))
	}
	if r.eng != nil {
		if eng, ok, err := monitor.NewEngine(ctx, r.eng); err != nil {
			mc.NotSampled = append(mc.NotSampled, monitor.Unavailable{What: "the engine's statistics", Why: err.Error()})
		} else if ok {
			mc.Sources = append(mc.Sources, eng)
		}
	}
	if s.mon, err = monitor.New(mc); err != nil {
		return err
	}
	if r.exp != nil {
		r.exp.Watch(s.mon)
	}
	s.mon.Start()
	return nil
}

func (s *sampler) Mark(label string, start bool, at time.Time) { s.mon.Mark(label, start, at) }

// Stop ends sampling; a file that could not be written is the error, and the summary
// is kept all the same.
func (s *sampler) Stop(time.Time) error {
	var err error
	s.sum, err = s.mon.Stop()
	return err
}

func (s *sampler) Attach(sec *result.Sections) { sec.Monitoring = s.sum }

// hostBusy is the host's CPU utilisation over the interval that ends at smp, steal
// left out (0 to 1), as the energy recorder's CPU model takes it; NaN on the first
// sample, which has no interval.
func hostBusy(smp *monitor.Sample) float64 {
	busy, ok := smp.Values["host.cpu.all.busy_pct"]
	if !ok {
		return math.NaN()
	}
	return math.Min(1, math.Max(0, (busy-smp.Values["host.cpu.all.steal_pct"])/100))
}

// realDirectories are the directories of the run's files that are not on emulated
// tiers (whose devices the emulated source follows), labelled by the class of files
// they hold; none for a server given by --dsn, whose files are not this host's to
// find.
func (r *Run) realDirectories() []monitor.Directory {
	onEmulated := func(c placement.Class) bool {
		if r.cfg.Plan.Empty() {
			return false
		}
		t, ok := r.cfg.Plan.Tier(c)
		return ok && t.Emulated()
	}
	var dirs []monitor.Directory
	add := func(c placement.Class, path string) {
		if path != "" && !onEmulated(c) {
			dirs = append(dirs, monitor.Directory{Label: string(c), Path: path})
		}
	}
	switch {
	case r.eng == nil:
		add(placement.Data, r.dir)
	case r.ecfg.DSN == "":
		add(placement.Data, r.ecfg.Dir)
		add(placement.WAL, r.ecfg.WALDir)
		add(placement.Temp, r.ecfg.TempDir)
	}
	return dirs
}

// emulatedDevices are the emulated tiers' counters for the monitor.
func (r *Run) emulatedDevices() ([]monitor.EmulatedDevice, error) {
	stats, err := r.placed.Stats()
	if err != nil {
		return nil, err
	}
	out := make([]monitor.EmulatedDevice, 0, len(stats))
	for _, d := range stats {
		mediaReads, mediaWrites := d.Media()
		out = append(out, monitor.EmulatedDevice{Name: d.Name, Reads: d.Reads, Writes: d.Writes, Flushes: d.Flushes,
			MediaReads: mediaReads, MediaWrites: mediaWrites,
			ReadBytes: d.ReadBytes, WriteBytes: d.WriteBytes, Busy: d.Busy,
			Latency: d.Latency.Mean() * time.Duration(d.Latency.Count()), QueueDepth: d.QueueDepth,
			ReadLatency: d.ReadLatency.Mean() * time.Duration(d.ReadLatency.Count())})
	}
	return out, nil
}

// cpuTimes are the host's CPU seconds so far: busy ones (steal left out, as the
// energy model wants: a hypervisor's other guests are not this run's) and all.
type cpuTimes struct {
	busy, total float64
	ok          bool
}

// readCPUTimes reads /proc/stat; not ok where it cannot be read.
func readCPUTimes() cpuTimes {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return cpuTimes{}
	}
	st, err := fs.Stat()
	if err != nil {
		return cpuTimes{}
	}
	c := st.CPUTotal
	busy := c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ
	return cpuTimes{busy: busy, total: busy + c.Idle + c.Iowait + c.Steal, ok: true}
}

// utilisation is the host's CPU utilisation from since to t (0 to 1), NaN when
// unknown: what the energy recorder's CPU model takes for the run without a monitor.
func (t cpuTimes) utilisation(since cpuTimes) float64 {
	if !t.ok || !since.ok || t.total <= since.total {
		return math.NaN()
	}
	return math.Min(1, math.Max(0, (t.busy-since.busy)/(t.total-since.total)))
}
