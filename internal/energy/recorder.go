package energy

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// Config says what to measure and how to model what cannot be measured.
type Config struct {
	// SysRoot and ProcRoot are where sysfs and procfs are mounted ("" is /sys and
	// /proc): RAPL comes from SysRoot's class/powercap, the CPU's name from ProcRoot's
	// cpuinfo, the memory from its meminfo.
	SysRoot  string
	ProcRoot string
	// NoRAPL models the CPU and DRAM even where RAPL is readable.
	NoRAPL bool
	// CPUWatts replaces the CPU table's figures (--cpu-watts IDLE,MAX) where the CPU
	// is modelled: RAPL, where readable, is used instead unless NoRAPL.
	CPUWatts *CPUWatts
	// CPUShape is the CPU model's shape (linear unless told).
	CPUShape Shape
	DRAM     DRAMConfig
	// BaseWatts is the rest of the host: motherboard, fans, NIC, power-supply loss
	// (--base-watts), 0 to MaxWatts; 0 counts none, and says so.
	BaseWatts float64
	Meters    []MeterConfig
	// GridIntensity is in grams of CO2 per kWh, 0 to MaxGridIntensity
	// (DefaultGridIntensity when 0 and GridIntensitySource is ""); GridIntensitySource
	// says where it came from (GridSource when ""): a source makes 0 a grid of its
	// own, not the default.
	GridIntensity       float64
	GridIntensitySource string
}

// Recorder follows a run's power: it reads RAPL and polls meter commands at each
// Sample, models the CPU from the utilisation each Sample brings, and turns it all
// into a Section at Finish. Its methods may be called from different goroutines.
type Recorder struct {
	cfg Config

	mu        sync.Mutex // guards what follows
	samples   []time.Time
	rapl      *rapl
	cpuLast   time.Time // RAPL package zones' last complete reading
	dramLast  time.Time
	cpuModel  *CPUModel
	dramModel *DRAMModel
	// cpuWhy and dramWhy say why the CPU or the memory has neither RAPL nor a model.
	cpuWhy, dramWhy string
	cpu, dram       [3]*Series // nominal, low, high (one series for RAPL: measured)
	unavailable     []Unavailable
	meters          []*meter
	noUtil          int // intervals without a utilisation
	raplErrors      int
	raplFirst       string
	raplSlow        int // intervals longer than MaxSampleInterval between RAPL reads
	// raplBad counts intervals whose counters gave more than MaxWatts.
	raplBad      int
	raplBadFirst string
	finished     bool
	// partsUnavailable are the components Finish could not have (devices without a
	// time, unreadable meters), for each window's Missing.
	partsUnavailable []Unavailable
}

// meter is one external meter being followed.
type meter struct {
	cfg MeterConfig
	cmd *commandMeter
}

// New checks cfg, finds RAPL (or the CPU and DRAM models) and checks each meter: a
// meter command is run once and a meter file that exists already is read, so that
// a bad one fails before the run. What this host cannot measure is noted, not an
// error.
func New(cfg Config) (*Recorder, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if cfg.GridIntensity == 0 && cfg.GridIntensitySource == "" {
		cfg.GridIntensity = DefaultGridIntensity
	}
	if cfg.GridIntensitySource == "" {
		cfg.GridIntensitySource = GridSource(cfg.GridIntensity)
	}
	if cfg.SysRoot == "" {
		cfg.SysRoot = "/sys"
	}
	shape, err := ParseShape(string(cfg.CPUShape))
	if err != nil {
		return nil, err
	}
	cfg.CPUShape = shape
	r := &Recorder{cfg: cfg}
	if !cfg.NoRAPL {
		var notes []Unavailable
		r.rapl, notes = probeRAPL(cfg.SysRoot)
		r.unavailable = append(r.unavailable, notes...)
	}
	if r.rapl == nil {
		var un *Unavailable
		if r.cpuModel, un = ResolveCPU(cfg.ProcRoot, cfg.CPUWatts, cfg.CPUShape); un != nil {
			r.unavailable = append(r.unavailable, *un)
			r.cpuWhy = un.Why
		}
	}
	if r.rapl == nil || len(r.rapl.drams) == 0 {
		var un *Unavailable
		if r.dramModel, un = ResolveDRAM(cfg.ProcRoot, cfg.DRAM); un != nil {
			r.unavailable = append(r.unavailable, *un)
			r.dramWhy = un.Why
		}
	}
	for i := range 3 {
		r.cpu[i], r.dram[i] = newSeries(time.Time{}), newSeries(time.Time{})
	}
	names := map[string]bool{"cpu": true, "dram": true, "base": true, "total": true}
	for _, mc := range cfg.Meters {
		m, err := newMeter(mc, names)
		if err != nil {
			r.Close()
			return nil, err
		}
		r.meters = append(r.meters, m)
	}
	return r, nil
}

// Check checks the figures cfg gives, as New does before it looks at the host: for
// callers that check settings long before the run (every cell of a study).
func (cfg Config) Check() error {
	if err := CheckGridIntensity(cfg.GridIntensity); err != nil {
		return err
	}
	if err := checkWatts(cfg.BaseWatts); err != nil {
		return fmt.Errorf("--base-watts %v: %v: give the watts of the host beyond CPU and memory, 0 to %g", cfg.BaseWatts, err, MaxWatts)
	}
	if w := cfg.CPUWatts; w != nil {
		if err := w.check(); err != nil {
			return fmt.Errorf("--cpu-watts %v,%v: %v", w.IdleW, w.MaxW, err)
		}
	}
	if err := cfg.DRAM.check(); err != nil {
		return err
	}
	_, err := ParseShape(string(cfg.CPUShape))
	return err
}

func newMeter(mc MeterConfig, names map[string]bool) (*meter, error) {
	if (mc.File == "") == (mc.Command == "") {
		return nil, fmt.Errorf("power meter %q: give a file of readings (--power-meter) or a command to poll (--power-meter-cmd), one of the two", mc.name())
	}
	if names[mc.name()] {
		return nil, fmt.Errorf("power meter %q: the name is taken: give each meter a name of its own", mc.name())
	}
	names[mc.name()] = true
	scope, err := ParseScope(string(mc.Scope))
	if err != nil {
		return nil, err
	}
	mc.Scope = scope
	if mc.Timeout <= 0 {
		mc.Timeout = DefaultMeterTimeout
	}
	m := &meter{cfg: mc}
	if mc.Command != "" {
		m.cmd = newCommandMeter(mc.Command, mc.Timeout)
		if err := m.cmd.check(); err != nil {
			m.cmd.stop()
			return nil, err
		}
		return m, nil
	}
	// A file that exists already is checked now and read again at Finish (a meter may
	// append to it during the run); one that does not is looked for at Finish (a run's
	// settings refuse a --power-meter that is not there: CheckMeterFile).
	if _, err := os.Stat(mc.File); err == nil {
		if _, _, err := ReadMeterFile(mc.File); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Sample records the power of the interval that ends at now: it reads RAPL, starts a
// poll of each meter command, and applies the CPU model at u, the host's CPU
// utilisation (0 to 1) over the same interval. The first Sample starts the record
// (its u is not used); a NaN u leaves the interval without a CPU model (not
// covered). Samples must come in time order, at most MaxSampleInterval apart for
// RAPL; one not after the previous is ignored. It returns each component's watts
// over the interval, for a monitor's series.
func (r *Recorder) Sample(now time.Time, u float64) map[string]float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.samples)
	if r.finished || (n > 0 && !now.After(r.samples[n-1])) {
		return nil
	}
	r.samples = append(r.samples, now)
	if n == 0 {
		for i := range 3 {
			r.cpu[i], r.dram[i] = newSeries(now), newSeries(now)
		}
	}
	watts := map[string]float64{}
	if r.rapl != nil {
		if r.readRAPL(r.rapl.packages, &r.cpuLast, r.cpu[0], now) {
			watts["cpu"] = r.cpu[0].last()
		}
		if len(r.rapl.drams) > 0 && r.readRAPL(r.rapl.drams, &r.dramLast, r.dram[0], now) {
			watts["dram"] = r.dram[0].last()
		}
	}
	if r.cpuModel != nil && n > 0 {
		if finite(u) {
			w := r.cpuModel.Watts(u)
			prev := r.samples[n-1]
			r.cpu[0].addStep(prev, now, w.Nominal)
			r.cpu[1].addStep(prev, now, w.Low)
			r.cpu[2].addStep(prev, now, w.High)
			watts["cpu"] = w.Nominal
		} else {
			r.noUtil++
		}
	}
	if r.dramModel != nil {
		watts["dram"] = r.dramModel.Watts.Nominal
	}
	if r.cfg.BaseWatts > 0 {
		watts["base"] = r.cfg.BaseWatts
	}
	for _, m := range r.meters {
		if m.cmd != nil {
			m.cmd.poll()
			if w, ok := m.cmd.latest(); ok {
				watts[m.cfg.name()] = w
			}
		}
	}
	return watts
}

// readRAPL reads zones into s as the step since *last, and reports whether it added
// one (not on the first reading, nor on a failed one).
func (r *Recorder) readRAPL(zones []*raplZone, last *time.Time, s *Series, now time.Time) bool {
	j, ok, err := readZones(zones)
	if err != nil {
		r.raplErrors++
		if r.raplFirst == "" {
			r.raplFirst = err.Error()
		}
		return false
	}
	if ok {
		if now.Sub(*last) > MaxSampleInterval {
			r.raplSlow++
		}
		w := j / now.Sub(*last).Seconds()
		if err := checkWatts(w); err != nil {
			// Two wraps in one interval cannot do this; a misread counter can. The
			// interval is left uncovered, and the next read starts from here.
			r.raplBad++
			if r.raplBadFirst == "" {
				r.raplBadFirst = fmt.Sprintf("%s over %s: %v", zoneNames(zones), now.Sub(*last), err)
			}
			*last = now
			return false
		}
		s.addStep(*last, now, w)
	}
	*last = now
	return ok
}

// Close stops polling meter commands. Finish closes; call Close on a run that ends
// without Finish.
func (r *Recorder) Close() {
	for _, m := range r.meters {
		if m.cmd != nil {
			m.cmd.stop()
		}
	}
}

// Inputs are what the run lifecycle knows at the end: its measured windows and the
// storage section's device energy.
type Inputs struct {
	// Windows are the run's measured windows. A window labelled "run" replaces the
	// one Finish makes from the first sample to the last.
	Windows []Window
	Devices []Device
}

// Window is a measured window of the run, with what was done in it.
type Window struct {
	Label        string
	Start, End   time.Time
	Queries      int64
	Transactions int64
	// QphH is the TPC-H composite metric of the window, for Watts/KQphH@Size.
	QphH float64
	// DeviceJoules, by device name, is a device's energy in this window where the
	// caller knows it (from the device's busy time in the window); other devices are
	// apportioned from their mount-to-unmount average.
	DeviceJoules map[string]float64
}

// Device is one emulated device's modelled energy from the storage section.
type Device struct {
	// Name is the tier's; the component is "storage:NAME".
	Name string
	Spec string
	// Joules and IdleJoules are from mount to unmount, which took Seconds.
	Joules     float64
	IdleJoules float64
	Seconds    float64
	Source     string
}

// Finish lets the meter commands' last polls finish (each within its timeout), reads
// meter files, and returns the section. An unreadable meter file is returned as the
// error with the section, in which that meter is unavailable and everything else
// kept.
func (r *Recorder) Finish(in Inputs) (*Section, error) {
	for _, m := range r.meters {
		if m.cmd != nil {
			m.cmd.drain()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finished = true
	comps, unavailable, notCounted, errs := r.components(in.Devices)
	r.partsUnavailable = unavailable
	sec := &Section{
		GridIntensity:       r.cfg.GridIntensity,
		GridIntensitySource: r.cfg.GridIntensitySource,
		Model:               ModelText,
		Unavailable:         append(append([]Unavailable{}, r.unavailable...), unavailable...),
		NotCounted:          notCounted,
	}
	for _, c := range comps {
		sec.Components = append(sec.Components, c.info)
	}
	windows := in.Windows
	hasRun := false
	for _, w := range windows {
		hasRun = hasRun || w.Label == "run"
	}
	if n := len(r.samples); !hasRun && n >= 2 {
		windows = append([]Window{{Label: "run", Start: r.samples[0], End: r.samples[n-1]}}, windows...)
	}
	for _, w := range windows {
		if !w.End.After(w.Start) {
			errs = append(errs, fmt.Errorf("energy: window %q ends (%s) before it starts (%s)", w.Label,
				w.End.Format(time.RFC3339Nano), w.Start.Format(time.RFC3339Nano)))
			continue
		}
		sec.Windows = append(sec.Windows, r.window(comps, w))
	}
	if run := sec.Window("run"); run != nil {
		sec.Chart = r.chart(comps, *run)
	}
	return sec, errors.Join(errs...)
}
