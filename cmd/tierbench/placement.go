package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/spf13/cobra"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/placement"
)

// placementFlags place the database's files on tiers; they are part of engineFlags.
type placementFlags struct {
	tiers           []string
	data, wal, temp string
	flushMethod     string
	gridIntensity   float64
	profiles        []string
	recordTrace     bool
	emulatorPath    string
}

func (pf *placementFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringArrayVar(&pf.tiers, "tier", nil, "a tier for files: NAME=PROFILE emulates a device (e.g. fast=sata-ssd, slow='pagecache(hdd-7200,size=1GiB)'), NAME=DIR is a real directory (repeatable)")
	f.StringVar(&pf.data, "data", "", "tier (or profile, or directory) of the database files: SQLite file with its WAL, PostgreSQL data directory, MariaDB datadir")
	f.StringVar(&pf.wal, "wal", "", "tier of the WAL: PostgreSQL pg_wal, MariaDB redo log (SQLite keeps its WAL beside the database)")
	f.StringVar(&pf.temp, "temp", "", "tier of temporary files: PostgreSQL temp tablespace, MariaDB tmpdir, SQLite temp store")
	f.StringVar(&pf.flushMethod, "flush-method", "", "how a managed engine writes data files: buffered (page cache, then fsync) or direct (O_DIRECT); default: the engine's, buffered on emulated tiers")
	f.Float64Var(&pf.gridIntensity, "grid-intensity", placement.DefaultGridIntensity,
		"grams of CO2 per kWh for the device energy's CO2 (475: the "+placement.GridIntensitySource+")")
	f.BoolVar(&pf.recordTrace, "record-trace", false, "record every request of each emulated tier to OUT/traces/TIER.trace, to replay it through other profiles with 'tierbench device replay'")
	f.StringVar(&pf.emulatorPath, "emulator", emulator.PathAuto, "how emulated tiers reach the device models: preload (LD_PRELOAD shim or SQLite VFS, a few us a request), fuse (a FUSE mount), or auto (preload where it can enter the engine, else fuse)")
	f.StringSliceVar(&pf.profiles, "profiles", nil, "device profile file or directory of *.yaml files for --tier (repeatable; default: "+device.DefaultUserDir()+" if it exists)")
}

// plan reads the placement flags; a nil plan with no error means nothing is placed.
func (pf *placementFlags) plan() (*placement.Plan, placement.FlushMethod, []string, error) {
	method, err := placement.ParseFlushMethod(pf.flushMethod)
	if err != nil {
		return nil, "", nil, err
	}
	if math.IsNaN(pf.gridIntensity) || math.IsInf(pf.gridIntensity, 0) || pf.gridIntensity < 0 {
		return nil, "", nil, fmt.Errorf("--grid-intensity %v: give grams of CO2 per kWh, 0 or more (e.g. 475 world, 369.5 USA, 56 France)", pf.gridIntensity)
	}
	classes := placement.Classes{Data: pf.data, WAL: pf.wal, Temp: pf.temp}
	if len(pf.tiers) == 0 && classes == (placement.Classes{}) {
		return nil, method, nil, nil
	}
	paths, err := userProfiles(pf.profiles)
	if err != nil {
		return nil, "", nil, err
	}
	reg, err := device.Load(paths...)
	if err != nil {
		return nil, "", nil, fmt.Errorf("--profiles: %w", err)
	}
	p, err := placement.NewPlan(pf.tiers, classes, reg)
	if err != nil {
		return nil, "", nil, err
	}
	return p, method, paths, nil
}

// openedEngine is an engine opened with its files placed on tiers. Finish closes it
// and then unmounts, in that order, whatever happened in between.
type openedEngine struct {
	eng    engine.Engine
	cfg    engine.Config
	placed *placement.Placed
	// record says whether the run's result gets a storage section: something was
	// placed or a flush method given.
	record   bool
	grid     float64
	finished bool
}

// open validates the engine and placement flags, mounts the emulated tiers, places
// the engine's files and opens it. keep leaves the database in place after Finish.
// On error nothing is left mounted or running.
func (ef *engineFlags) open(ctx context.Context, out string, keep bool) (*openedEngine, error) {
	if out == "" {
		return nil, errors.New("--out is required: the directory for results (and, by default, the database)")
	}
	cfg, err := ef.config("--engine", out)
	if err != nil {
		return nil, err
	}
	cfg.Keep = keep
	plan, method, paths, err := ef.plan()
	if err != nil {
		return nil, err
	}
	if !plan.Empty() {
		if cfg.DSN != "" {
			return nil, errors.New("--tier, --data, --wal and --temp place the files of a database tierbench runs: an external server (--dsn) keeps its files where it was set up")
		}
		if ef.dbDir != "" && ef.data != "" {
			return nil, fmt.Errorf("--db %s and --data %s both say where the database goes: give one", ef.dbDir, ef.data)
		}
		if err := plan.CheckEngine(cfg.Name); err != nil {
			return nil, err
		}
	}
	if err := ensureWritableDir("--out", out); err != nil {
		return nil, err
	}
	if ef.recordTrace && !plan.Emulated() {
		return nil, errors.New("--record-trace records the requests of emulated tiers: place a class on one, e.g. --data 'pagecache(sata-ssd,size=1GiB)'")
	}
	emuPath, err := emulator.ParsePath(ef.emulatorPath)
	if err != nil {
		return nil, err
	}
	opts := placement.Options{OutDir: out, FlushMethod: method, Keep: keep, Trace: ef.recordTrace, Engine: cfg.Name}
	opts.Emulator.Profiles = paths
	opts.Emulator.Path = emuPath
	if plan == nil {
		plan = &placement.Plan{}
	}
	placed, err := plan.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	if _, err := placed.Apply(&cfg); err != nil {
		placed.Stop()
		return nil, err
	}
	eng, err := engine.Open(ctx, cfg)
	if err != nil {
		placed.Stop()
		return nil, fmt.Errorf("%s: %w", cfg.Name, err)
	}
	return &openedEngine{eng: eng, cfg: cfg, placed: placed, grid: ef.gridIntensity,
		record: !plan.Empty() || method != ""}, nil
}

// Engine is the open engine.
func (o *openedEngine) Engine() engine.Engine { return o.eng }

// IOSampler reads the engine's I/O counters (when it has them) and the emulated
// devices' for the per-interval MB/s of tpcc run and oltp run; nil when there is
// neither.
func (o *openedEngine) IOSampler() func(ctx context.Context) (metrics.IOSample, error) {
	counter, _ := o.eng.(engine.IOCounter)
	if counter == nil && !o.placed.Emulated() {
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
		devs, err := o.placed.Stats()
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

// Config is the configuration the engine was opened with, placement applied.
func (o *openedEngine) Config() engine.Config { return o.cfg }

// Finish closes the engine (removing its directory when it created it and left it
// empty, unless kept), then unmounts the emulated tiers, and returns the storage
// section of the result: nil when nothing was placed. Safe to call twice; the second
// call returns nil.
func (o *openedEngine) Finish() (*placement.Storage, error) {
	if o.finished {
		return nil, nil
	}
	o.finished = true
	closeErr := o.eng.Close()
	if !o.cfg.Keep && o.cfg.DSN == "" {
		os.Remove(o.cfg.Dir) // fails harmlessly when the directory is not empty
	}
	st, err := o.placed.Finish(o.grid)
	if !o.record {
		st = nil
	}
	if closeErr != nil {
		err = errors.Join(fmt.Errorf("%s: close: %w", o.cfg.Name, closeErr), err)
	}
	return st, err
}
