package lifecycle

import (
	"fmt"
	"strings"
	"time"

	"tierbench/internal/capacity"
	"tierbench/internal/device"
	"tierbench/internal/emulator"
	"tierbench/internal/energy"
	"tierbench/internal/engine"
	"tierbench/internal/monitor"
	"tierbench/internal/params"
	"tierbench/internal/placement"
	"tierbench/internal/workload"
)

// Options say which run settings a command has: those of an engine or of a
// directory, whether its database stays, whether it estimates what it needs, whether
// its result gets the storage and energy sections, and how --out is described.
type Options struct {
	// Engine says the workload runs on a database engine; without one it runs in a
	// directory (--data, or --dir).
	Engine bool
	// KeepDatabase says the database stays between commands (load, run, check):
	// --keep-db is implied, and hidden.
	KeepDatabase bool
	// Estimates says the command checks what it needs of the host before it starts:
	// it takes --ignore-limits.
	Estimates bool
	// Sections says the command's result gets the storage, energy, monitoring and
	// verdict sections: it takes the energy and monitoring flags.
	Sections bool
	// Phase is the phase the settings are for: a phase other than run names its
	// monitor's files after it (load-metrics.jsonl), so that a load and the run after
	// it in the same OUT keep theirs.
	Phase workload.Phase
	// OutHelp is --out's help; OutWhat says what --out is for when it is missing.
	OutHelp, OutWhat string
}

// Settings are the run settings every command shares (engine, placement, energy,
// --out), as a parameter set, so that a command line and a study set them alike.
// A value is parsed when it is set (params.Parsed): a bad --buffer fails where it is
// given, and from there the bytes travel as bytes. Config checks the settings
// together.
type Settings struct {
	opts Options
	set  *params.Set

	out                       string
	engine, dsn, db           string
	buffer                    int64
	settings                  []string
	keepDB                    bool
	clientIO                  engine.ClientIO
	tiers                     []string
	data, wal, temp, dir      string
	flushMethod               engine.FlushMethod
	gridIntensity             float64
	profiles                  []string
	recordTrace, ignoreLimits bool
	emulatorPath              string
	cpuWatts                  *energy.CPUWatts
	baseWatts                 float64
	powerMeter, powerMeterCmd string
	prices                    string
	hostEmbodiedKg            float64
	hostLifeYears             float64
	sample                    time.Duration
	metricsAddr               string
	serverPID                 int

	// Plan, when set, places the files instead of --tier, --data, --wal and --temp: a
	// caller that has the tiers as values (the demo) passes them as they are.
	Plan *placement.Plan
	// Registry resolves device profiles (nil: the built-ins and --profiles); Emulator
	// tunes the emulator (tests give it their own binary).
	Registry *device.Registry
	Emulator emulator.Options
}

// NewSettings returns the run settings a command with opts has, at their defaults.
func NewSettings(opts Options) *Settings {
	s := &Settings{opts: opts, set: params.NewSet("the run settings")}
	p := s.set
	p.String(&s.out, "out", "", params.String, opts.OutHelp)
	if opts.Engine {
		p.Enum(&s.engine, "engine", "sqlite", engine.Names(), "database engine: sqlite, postgres or mysql")
		p.String(&s.dsn, "dsn", "", params.String, "connect to a server you run (external mode) instead of starting a private one")
		p.String(&s.db, "db", "", params.String, "directory of the embedded database or managed instance (default: OUT/db)")
		p.Size(&s.buffer, "buffer", "", "buffer size of the engine, e.g. 256MB (shared_buffers, innodb_buffer_pool_size, SQLite cache)")
		p.Array(&s.settings, "set", "extra server setting name=value for a managed instance (repeatable)")
		keep := p.Bool(&s.keepDB, "keep-db", false, "keep the database in --db after the run (default: a managed instance or SQLite file tierbench created is removed)")
		if opts.KeepDatabase {
			keep.Hide()
		}
		params.Parsed(p, &s.clientIO, "client-io", "auto", params.Enum, parseClientIO,
			"how sessions wait for a server: thread (a thread each, waiting in poll(2), as C clients do: least overhead), poller (Go's network poller: scales to thousands of users), or auto (thread up to 8 users per CPU)").
			Choices = []string{"auto", "thread", "poller"}
	}
	p.Array(&s.tiers, "tier", "a tier for files: NAME=PROFILE emulates a device (e.g. fast=sata-ssd, slow='pagecache(hdd-7200,size=1GiB)'), NAME=DIR is a real directory (repeatable)")
	if opts.Engine {
		p.String(&s.data, "data", "", params.String, "tier (or profile, or directory) of the database files: SQLite file with its WAL, PostgreSQL data directory, MariaDB datadir")
		p.String(&s.wal, "wal", "", params.String, "tier of the WAL: PostgreSQL pg_wal, MariaDB redo log (SQLite keeps its WAL beside the database)")
		p.String(&s.temp, "temp", "", params.String, "tier of temporary files: PostgreSQL temp tablespace, MariaDB tmpdir, SQLite temp store")
		params.Parsed(p, &s.flushMethod, "flush-method", "", params.Enum, engine.ParseFlushMethod,
			"how a managed engine writes data files: buffered (page cache, then fsync) or direct (O_DIRECT); default: the engine's, buffered on emulated tiers").
			Choices = []string{"buffered", "direct"}
	} else {
		p.String(&s.data, "data", "", params.String, "tier (or profile, or directory) to run in: an emulated device such as sata-ssd, or a directory")
		p.String(&s.dir, "dir", "", params.String, "directory to run in (the files go in a new directory inside it)")
	}
	p.Float(&s.gridIntensity, "grid-intensity", placement.DefaultGridIntensity,
		"grams of CO2 per kWh for the device energy's CO2 (475: the "+placement.GridIntensitySource+")")
	params.Parsed(p, &s.emulatorPath, "emulator", emulator.PathAuto, params.Enum, emulator.ParsePath,
		"how emulated tiers reach the device models: preload (LD_PRELOAD shim in a managed server, a VFS for SQLite: a few us a request), fuse (a FUSE mount), or auto (preload where it can enter the engine, else fuse)").
		Choices = []string{emulator.PathFUSE, emulator.PathPreload, emulator.PathAuto}
	p.Bool(&s.recordTrace, "record-trace", false, "record every request of each emulated tier to OUT/traces/TIER.trace, to replay it through other profiles with 'tierbench device replay'")
	p.List(&s.profiles, "profiles", "device profile file or directory of *.yaml files for --tier (repeatable; default: "+device.DefaultUserDir()+" if it exists)")
	if opts.Estimates {
		p.Bool(&s.ignoreLimits, strings.TrimPrefix(capacity.OverrideFlag, "--"), false, capacity.OverrideHelp)
	}
	if opts.Sections {
		params.Parsed(p, &s.cpuWatts, "cpu-watts", "", params.String, parseCPUWatts, "the CPUs' idle and full watts as IDLE,MAX (e.g. 12.5,125) for the energy section where the CPU's power is modelled (default: from the CPU's TDP in tierbench's table)")
		p.Float(&s.baseWatts, "base-watts", 0, "watts of the rest of the host (motherboard, fans, NIC, power-supply loss) for the energy section (0: not counted)")
		p.String(&s.powerMeter, "power-meter", "", params.String, "a file of (time, watts) readings of a meter on the whole host, for the energy section")
		p.Float(&s.hostEmbodiedKg, "host-embodied-kg", 0, "kg CO2e of making the host, for the energy section's SCI (default: a Dell PowerEdge R640's published 1,314.1 kg, labelled a default; 0: not counted, and said so)")
		p.Float(&s.hostLifeYears, "host-life-years", energy.HostLifeYears, "the life the host's embodied carbon is spread over ("+energy.HostLifeSource+")")
		p.String(&s.prices, "prices", "", params.String, "a price file (docs/cloud.md, \"Cost\") laid over the bundled prices of cloud volumes, and the host's price an hour, for the cost section")
		p.String(&s.powerMeterCmd, "power-meter-cmd", "", params.String, "a command that prints the host's watts (several lines: their sum), polled during the run (e.g. 'ipmitool dcmi power reading'), for the energy section")
		params.Parsed(p, &s.sample, "sample", monitor.DefaultInterval.String(), params.String, monitor.ParseSample, "how often to sample the host, the processes, the disks, emulated devices and the engine into OUT/metrics.jsonl and .csv, for the monitoring and verdict sections (e.g. 1s, 500ms), or off")
		p.String(&s.metricsAddr, "metrics-addr", "", params.String, "serve the samples, and the throughput and latency of workloads with report intervals, to Prometheus at http://HOST:PORT/metrics while the run goes (e.g. 127.0.0.1:9187)")
		if opts.Engine {
			p.Int(&s.serverPID, "server-pid", 0, "process id of the server given by --dsn, when it runs on this machine: its process tree's CPU and memory are sampled")
		}
	}
	return s
}

// parseClientIO reads --client-io.
func parseClientIO(text string) (engine.ClientIO, error) {
	c, err := engine.ParseClientIO(text)
	if err != nil {
		return "", fmt.Errorf("--client-io %w", err)
	}
	return c, nil
}

// parseCPUWatts reads --cpu-watts; empty is nil: the CPU's power from its TDP.
func parseCPUWatts(text string) (*energy.CPUWatts, error) {
	if text == "" {
		return nil, nil
	}
	w, err := energy.ParseCPUWatts(text)
	if err != nil {
		return nil, err
	}
	return &w, nil
}

// Params are the settings as parameters, for a command line (Params().FlagSet()) or a
// study (Params().SetValues).
func (s *Settings) Params() *params.Set { return s.set }

// Out is --out.
func (s *Settings) Out() string { return s.out }

// EngineName is --engine as given, lower case.
func (s *Settings) EngineName() string { return strings.ToLower(s.engine) }
