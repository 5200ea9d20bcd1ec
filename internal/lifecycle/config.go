package lifecycle

import (
	"errors"
	"fmt"
	"io"
	"os"
	"tierbench/internal/cost"
	"time"

	"tierbench/internal/device"
	"tierbench/internal/energy"
	"tierbench/internal/engine"
	"tierbench/internal/monitor"
	"tierbench/internal/placement"
	"tierbench/internal/rundir"
	"tierbench/internal/workload"
)

// Config is a validated run: where its results go, the engine (or directory) it runs
// on, where the files are placed, and what the phase asked of it.
type Config struct {
	// Out is the output directory, locked for the run.
	Out string
	// Engine is the engine to open; nil for a workload that runs in a directory.
	Engine *engine.Config
	// Dir is the directory a workload without an engine runs in when no tier is
	// placed (--dir).
	Dir string
	// Plan places files on tiers (empty: nothing placed); Placement tunes it.
	Plan      *placement.Plan
	Placement placement.Options
	// Record says the result gets a storage section: something was placed or a flush
	// method given.
	Record bool
	// GridIntensity is the CO2 intensity for the storage and energy sections.
	GridIntensity float64
	// Energy configures the energy section's recorder; PrintEnergy prints its
	// summary (an energy flag was given).
	Energy      energy.Config
	PrintEnergy bool
	// Prices price the run's cloud volumes and host for the cost section
	// (docs/cloud.md, "Cost"): the bundled table, with --prices laid over it.
	Prices *cost.Table
	// HostEmbodied is the host's embodied carbon for the SCI (--host-embodied-kg, or
	// energy.HostEmbodiedKg labelled a default when it is not given; Kg 0: not counted).
	HostEmbodied energy.Embodied
	// Request is what the phase asked of the run.
	Request workload.Request
	// IgnoreLimits skips the capacity check (--ignore-limits).
	IgnoreLimits bool
	// Monitor samples during the run; nil: the monitor the settings ask for (Sample,
	// none when it is 0).
	Monitor Monitor
	// Sample is how often the monitor samples (--sample; 0: off). MetricsPrefix begins
	// the names of the files it writes in Out: "" for a run (metrics.jsonl and
	// metrics.csv), "load-" for a load.
	Sample        time.Duration
	MetricsPrefix string
	// MetricsAddr serves the run to Prometheus while it goes (--metrics-addr; "":
	// not served).
	MetricsAddr string
	// ServerPID is the process of a server given by --dsn, whose tree is sampled
	// (--server-pid; 0: not sampled).
	ServerPID int
}

// IO is where a run writes for people and what its lock records.
type IO struct {
	Stdout, Stderr io.Writer
	// Progress takes progress bars (nil: none).
	Progress io.Writer
	// Command is the command line the --out lock records (passwords removed).
	Command string
	// Note, when set, takes the notes a run makes (an earlier run's files set aside,
	// an ACL entry added) instead of Stderr's "note: ..." lines.
	Note func(string)
}

// Config validates the settings for a phase that asks req, together, and returns the
// run's configuration; the values themselves were parsed when they were set. It runs
// nothing: it reads only the device profiles, the tiers' directories and whether
// --out is a study's (whose directory a run must not write into), so that a study can
// check every cell before the first starts. A phase is configured once,
// when it is checked (Validate, Execute), and runs with that configuration.
func (s *Settings) Config(req workload.Request) (*Config, error) {
	if s.out == "" {
		return nil, fmt.Errorf("--out is required: %s", s.opts.OutWhat)
	}
	if err := rundir.HoldsStudy("--out", s.out); err != nil {
		return nil, err
	}
	cfg := &Config{Out: s.out, Request: req, IgnoreLimits: s.ignoreLimits, GridIntensity: s.gridIntensity}
	if err := energy.CheckGridIntensity(s.gridIntensity); err != nil {
		return nil, err
	}
	if s.opts.Engine {
		ecfg, err := s.engineConfig(req)
		if err != nil {
			return nil, err
		}
		cfg.Engine = ecfg
	}
	plan, paths, reg, err := s.plan()
	if err != nil {
		return nil, err
	}
	cfg.Plan, cfg.Record = plan, !plan.Empty() || s.flushMethod != ""
	cfg.Placement = placement.Options{FlushMethod: s.flushMethod, Registry: reg, Emulator: s.Emulator, Trace: s.recordTrace}
	cfg.Placement.Emulator.Path = s.emulatorPath
	if cfg.Engine != nil {
		cfg.Placement.Engine = cfg.Engine.Name
	}
	if err := s.checkPlan(cfg, plan); err != nil {
		return nil, err
	}
	if s.recordTrace && !plan.Emulated() {
		return nil, errors.New("--record-trace records the requests of emulated tiers: place a class on one, e.g. --data 'pagecache(sata-ssd,size=1GiB)'")
	}
	cfg.Placement.Emulator.Profiles = paths
	if cfg.Engine != nil {
		cfg.Placement.Keep = cfg.Engine.Keep
	}
	if cfg.Energy, err = s.energyConfig(); err != nil {
		return nil, err
	}
	if cfg.Prices, err = cost.Load(s.prices); err != nil {
		return nil, err
	}
	if reg != nil {
		if err := cfg.Prices.Check(func(name string) bool { _, err := reg.Resolve(name); return err == nil }); err != nil {
			return nil, err
		}
	}
	if s.opts.Sections && s.hostEmbodiedKg < 0 {
		return nil, fmt.Errorf("--host-embodied-kg %v: give kg CO2e of 0 or more (0: not counted)", s.hostEmbodiedKg)
	}
	if s.opts.Sections && s.hostLifeYears <= 0 {
		return nil, fmt.Errorf("--host-life-years %v: give a life of more than 0 years", s.hostLifeYears)
	}
	cfg.HostEmbodied = energy.Embodied{Name: "host", Kg: s.hostEmbodiedKg, LifeYears: s.hostLifeYears,
		Source: fmt.Sprintf("--host-embodied-kg %g over --host-life-years %g", s.hostEmbodiedKg, s.hostLifeYears)}
	if f := s.set.Lookup("host-embodied-kg"); f != nil && !f.Changed() {
		// Not given: a published server's figure stands in, labelled a default
		// (docs/energy.md, "SCI"); --host-embodied-kg 0 leaves the host out.
		cfg.HostEmbodied.Kg, cfg.HostEmbodied.Default = energy.HostEmbodiedKg, true
		cfg.HostEmbodied.Source = fmt.Sprintf("%s, over --host-life-years %g", energy.HostEmbodiedSource, s.hostLifeYears)
	}
	cfg.PrintEnergy = s.cpuWatts != nil || s.baseWatts != 0 || s.powerMeter != "" || s.powerMeterCmd != ""
	if err := s.monitorConfig(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// monitorConfig checks the monitoring flags into cfg; the monitor's files join the
// phase's results, so that an earlier command's are set aside, not overwritten or left
// beside a result they do not belong to.
func (s *Settings) monitorConfig(cfg *Config) error {
	if !s.opts.Sections {
		return nil
	}
	d := s.sample
	switch {
	case s.serverPID < 0:
		return fmt.Errorf("--server-pid %d: give a process id above 0", s.serverPID)
	case s.serverPID > 0 && s.dsn == "":
		return fmt.Errorf("--server-pid %d: tierbench knows the process of the server it runs; give --server-pid with --dsn", s.serverPID)
	}
	if s.metricsAddr != "" {
		if err := monitor.CheckAddr(s.metricsAddr); err != nil {
			return err
		}
	}
	cfg.Sample, cfg.MetricsAddr, cfg.ServerPID = d, s.metricsAddr, s.serverPID
	prefix := ""
	if s.opts.Phase != "" && s.opts.Phase != workload.Run {
		prefix = string(s.opts.Phase) + "-"
	}
	if d > 0 {
		cfg.MetricsPrefix = prefix
	}
	// Set aside also when this run samples nothing: an earlier run's series left beside
	// this run's result would be read as this run's (by `tierbench report`, for one).
	res := cfg.Request.Results
	cfg.Request.Results = append(res[:len(res):len(res)], prefix+monitor.JSONLinesFile, prefix+monitor.CSVFile)
	return nil
}

// plan is the placement the settings give (empty when nothing is placed), with the
// users' profile files and the device registry it was resolved with.
func (s *Settings) plan() (*placement.Plan, []string, *device.Registry, error) {
	paths, err := device.ProfilePaths(s.profiles)
	if err != nil {
		return nil, nil, nil, err
	}
	reg := s.Registry
	if reg == nil {
		if reg, err = device.Load(paths...); err != nil {
			return nil, nil, nil, fmt.Errorf("--profiles: %w", err)
		}
	}
	plan := s.Plan
	classes := placement.Classes{Data: s.data, WAL: s.wal, Temp: s.temp}
	if plan == nil && (len(s.tiers) > 0 || classes != (placement.Classes{})) {
		if plan, err = placement.NewPlan(s.tiers, classes, reg); err != nil {
			return nil, nil, nil, err
		}
	}
	if plan == nil {
		plan = &placement.Plan{}
	}
	return plan, paths, reg, nil
}

// checkPlan refuses placements that cannot be: files of an external server, --db and
// --data together, what the engine cannot place apart; without an engine, --dir and
// --data together, or neither.
func (s *Settings) checkPlan(cfg *Config, plan *placement.Plan) error {
	if cfg.Engine == nil {
		switch {
		case s.dir != "" && s.data != "":
			return fmt.Errorf("--dir %s and --data %s both say where to run: give one", s.dir, s.data)
		case s.dir != "":
			if fi, err := os.Stat(s.dir); err != nil || !fi.IsDir() {
				return fmt.Errorf("--dir %s: not an existing directory: create it, or give the directory (a mount of the device under test) to run in", s.dir)
			}
			cfg.Dir = s.dir
		case plan.Empty():
			return errors.New("--data or --dir is required: the device (a profile such as sata-ssd) or directory to run in")
		}
		if _, ok := plan.Tier(placement.Data); !plan.Empty() && !ok {
			return errors.New("--tier holds nothing: give --data TIER to run on it")
		}
		return nil
	}
	if cfg.Engine.DSN != "" && !plan.Empty() {
		return errors.New("--tier, --data, --wal and --temp place the files of a database tierbench runs: an external server (--dsn) keeps its files where it was set up")
	}
	if s.db != "" && s.data != "" {
		return fmt.Errorf("--db %s and --data %s both say where the database goes: give one", s.db, s.data)
	}
	return plan.CheckEngine(cfg.Engine, cfg.Placement.FlushMethod)
}

// energyConfig is the energy recorder's configuration from the energy flags.
func (s *Settings) energyConfig() (energy.Config, error) {
	ec := energy.Config{GridIntensity: s.gridIntensity, GridIntensitySource: energy.GridSource(s.gridIntensity), BaseWatts: s.baseWatts,
		CPUWatts: s.cpuWatts}
	if err := ec.Check(); err != nil {
		return ec, err
	}
	file, cmd := energy.MeterConfig{Name: "meter", File: s.powerMeter}, energy.MeterConfig{Name: "meter", Command: s.powerMeterCmd}
	if s.powerMeter != "" && s.powerMeterCmd != "" {
		file.Name, cmd.Name = "power-meter", "power-meter-cmd"
	}
	if s.powerMeter != "" {
		if err := energy.CheckMeterFile(s.powerMeter); err != nil {
			return ec, err
		}
		ec.Meters = append(ec.Meters, file)
	}
	if s.powerMeterCmd != "" {
		ec.Meters = append(ec.Meters, cmd)
	}
	return ec, nil
}
