package placement

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
	"tierbench/internal/energy"
	"tierbench/internal/engine"
	"tierbench/internal/result"
)

// TracesDir is the directory under Options.OutDir that Options.Trace records into.
const TracesDir = "traces"

// Options tune Start.
type Options struct {
	// OutDir holds the emulated tiers: OUT/tiers/NAME/backing and OUT/tiers/NAME/mnt.
	OutDir string
	// Registry resolves the tiers' specs for their profiles' watts in the result.
	Registry *device.Registry
	// Emulator is passed to emulator.Start.
	Emulator emulator.Options
	// FlushMethod is --flush-method: "" keeps the engine's default (buffered on an
	// emulated tier).
	FlushMethod engine.FlushMethod
	// ServerMajor is the major version of the managed server, for settings that exist
	// only in some versions; 0 asks the installed server (engine.IOSettings.Major).
	ServerMajor int
	// Keep leaves the emulated tiers' backing files in OUT/tiers after Finish, so a
	// later run with the same --tier values finds the database (tpcc load, then run).
	Keep bool
	// Trace records every request of each emulated tier to OUT/traces/NAME.trace, for
	// `tierbench device replay` through profiles too fast to emulate on this host.
	Trace bool
	// Engine is the engine whose files go on the tiers: it decides whether the
	// preload path can reach its I/O (Emulator.Path auto or preload; emulator.go).
	Engine string
}

// Placed is a plan with its emulated devices mounted.
type Placed struct {
	plan    *Plan
	opts    Options
	reg     *device.Registry
	em      *emulator.Emulator
	dirs    map[string]string // tier name -> directory to put files in
	traces  map[string]string // tier name -> trace file (Options.Trace)
	roots   []string          // OUT/tiers/NAME of each emulated tier
	created []string          // data directories Dir made inside users' tiers
	applied []engine.Setting  // settings EngineFiles added
	// emu is how the emulated tiers are served; env the preload shim's environment
	// for a managed server, detach the SQLite VFS's hold on the ring.
	emu    *result.EmulatorInfo
	env    []string
	detach func()
	watch  *engineWatch // WatchEngineIO

	once    sync.Once
	final   []emulator.DeviceStats
	stopErr error
	models  map[string]device.Model // Models
}

// Start mounts the plan's emulated tiers. On error nothing is left mounted. The
// caller must Stop (or Finish) after closing the engine: a server that still has
// files open on a mount gets it detached lazily, which loses the final counters.
func (p *Plan) Start(ctx context.Context, opts Options) (*Placed, error) {
	pl := &Placed{plan: p, opts: opts, reg: opts.Registry, dirs: map[string]string{}, traces: map[string]string{}}
	if pl.reg == nil {
		reg, err := device.Load(opts.Emulator.Profiles...)
		if err != nil {
			return nil, err
		}
		pl.reg = reg
	}
	var devs []emulator.Device
	path := emulator.PathFUSE
	if p.Emulated() {
		var fallback string
		var err error
		if path, fallback, err = choosePath(opts.Emulator.Path, opts.Engine); err != nil {
			return nil, err
		}
		pl.emu = &result.EmulatorInfo{Requested: opts.Emulator.Path, Path: path, Fallback: fallback}
		if pl.emu.Requested == "" {
			pl.emu.Requested = emulator.PathFUSE
		}
	}
	for _, t := range p.Tiers {
		if !t.Emulated() {
			pl.dirs[t.Name] = t.Dir
			continue
		}
		if opts.OutDir == "" {
			return nil, errors.New("placement: emulated tiers need an output directory for their files")
		}
		root, err := filepath.Abs(filepath.Join(opts.OutDir, "tiers", t.Name))
		if err != nil {
			return nil, err
		}
		// 0755 all the way: a managed server runs as its own user and must reach the mount.
		for _, d := range []string{filepath.Join(opts.OutDir, "tiers"), root} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				pl.removeTiers()
				return nil, fmt.Errorf("%s: %w", p.flag(t.Name), err)
			}
			os.Chmod(d, 0o755)
		}
		dev := emulator.Device{Name: t.Name, Spec: t.Spec, BackingDir: filepath.Join(root, "backing"), MountPoint: filepath.Join(root, "mnt")}
		if opts.Trace {
			// Outside the tier's root, which is removed after a run that keeps no data.
			traces, err := filepath.Abs(filepath.Join(opts.OutDir, TracesDir))
			if err != nil {
				return nil, err
			}
			if err := os.MkdirAll(traces, 0o755); err != nil {
				pl.removeTiers()
				return nil, fmt.Errorf("%s: %w", p.flag(t.Name), err)
			}
			dev.Trace = filepath.Join(traces, t.Name+".trace")
			pl.traces[t.Name] = dev.Trace
		}
		devs = append(devs, dev)
		pl.roots = append(pl.roots, root)
		pl.dirs[t.Name] = dev.MountPoint
		if path == emulator.PathPreload { // no mount: the engine uses the files themselves
			pl.dirs[t.Name] = dev.BackingDir
		}
	}
	if len(devs) > 0 {
		eopts := opts.Emulator
		eopts.Path = path
		log := &startLog{w: eopts.Log}
		if log.w == nil {
			log.w = os.Stderr
		}
		eopts.Log = log
		em, err := emulator.Start(ctx, devs, eopts)
		if err != nil && path == emulator.PathPreload && opts.Emulator.Path == emulator.PathAuto && errors.Is(err, emulator.ErrNoPreload) {
			// auto: what the preload path cannot serve, a mount may
			path, eopts.Path = emulator.PathFUSE, emulator.PathFUSE
			pl.emu.Path, pl.emu.Fallback = path, err.Error()
			log.forget()
			for _, d := range devs {
				pl.dirs[d.Name] = d.MountPoint
			}
			em, err = emulator.Start(ctx, devs, eopts)
		}
		log.release(err == nil)
		if err != nil {
			pl.removeTiers()
			var tf *emulator.TooFastError
			if errors.As(err, &tf) {
				return nil, &TooFastError{Flag: p.flag(tf.Device), TooFastError: tf}
			}
			if errors.Is(err, emulator.ErrNoPreload) {
				return nil, fmt.Errorf("--emulator preload: %w; or use --emulator fuse (or auto, which falls back to it)", err)
			}
			return nil, err
		}
		pl.em = em
		if path == emulator.PathPreload {
			if err := pl.startPreload(); err != nil {
				em.Stop()
				pl.removeTiers()
				return nil, err
			}
		}
		for _, d := range devs { // the mount's root belongs to root; let a server's user in
			os.Chmod(d.MountPoint, 0o755)
			os.Chmod(d.BackingDir, 0o755)
		}
	}
	return pl, nil
}

// Dir is the directory for class: for data a "db" directory inside the tier (so an
// engine that removes its empty directory never removes a user's tier), for WAL and
// temp the tier itself (engines make their own subdirectories there). "" when the
// class is not placed.
func (pl *Placed) Dir(class Class) string {
	t, ok := pl.plan.Tier(class)
	if !ok {
		return ""
	}
	if class == Data {
		return filepath.Join(pl.dirs[t.Name], "db")
	}
	return pl.dirs[t.Name]
}

// TierDir is the directory of the tier class is placed on, itself: the mount point of
// an emulated tier, a real tier's directory; "" when the class is not placed. A
// workload without an engine works there.
func (pl *Placed) TierDir(class Class) string {
	t, ok := pl.plan.Tier(class)
	if !ok {
		return ""
	}
	return pl.dirs[t.Name]
}

// EngineFiles is what placement gives an engine: the directories of the classes
// placed ("" for one that is not), the environment a managed server's processes get
// (the preload shim's), and the settings it adds.
type EngineFiles struct {
	Dir, WALDir, TempDir string
	Env                  []string
	// Settings are those that let the engine's I/O reach an emulated device honestly
	// and those of the flush method, as the engine's driver says
	// (engine.IOSettingsOf), less the ones the engine is given already: a setting the
	// user gave wins.
	Settings []engine.Setting
}

// EngineFiles places the files of the engine cfg describes on the tiers and says
// where they go and what the engine needs for it; it writes nothing into cfg (the run
// lifecycle puts the engine's configuration together). An external server (cfg.DSN)
// cannot be placed: it gets nothing.
func (pl *Placed) EngineFiles(cfg engine.Config) (EngineFiles, error) {
	var f EngineFiles
	if err := pl.plan.CheckEngine(&cfg, pl.opts.FlushMethod); err != nil {
		return f, err
	}
	if cfg.DSN != "" {
		return f, nil
	}
	io, err := engine.IOSettingsOf(cfg.Name)
	if err != nil {
		return f, fmt.Errorf("placement: %w", err)
	}
	major := pl.opts.ServerMajor
	if major == 0 && (pl.plan.Emulated() || pl.opts.FlushMethod != "") {
		if major, err = io.Major(); err != nil {
			return f, err
		}
	}
	want, err := io.For(cfg.Name, pl.plan.Emulated(), pl.opts.FlushMethod, major)
	if err != nil {
		return f, err
	}
	if d := pl.Dir(Data); d != "" {
		if _, err := os.Stat(d); pl.isDirTier(Data) && errors.Is(err, os.ErrNotExist) {
			pl.created = append(pl.created, d)
		}
		f.Dir = d
	}
	if d := pl.Dir(WAL); d != "" && io.NoSeparateWAL == "" { // else beside the data (CheckEngine)
		f.WALDir = d
	}
	f.TempDir = pl.Dir(Temp)
	f.Env = slices.Clone(pl.env)
	for _, st := range want {
		if _, set := cfg.Settings[st.Name]; !set {
			f.Settings = append(f.Settings, st)
		}
	}
	pl.applied = slices.Clone(f.Settings)
	return f, nil
}

func (pl *Placed) isDirTier(class Class) bool {
	t, ok := pl.plan.Tier(class)
	return ok && !t.Emulated()
}

// Emulated says whether any tier is an emulated device.
func (pl *Placed) Emulated() bool { return pl.em != nil }

// Stats are the emulated devices' counters now (nil without emulated tiers), with an
// error once the preload path reports that they miss the engine's I/O (call it with
// the engine open).
func (pl *Placed) Stats() ([]emulator.DeviceStats, error) {
	if pl.em == nil {
		return nil, nil
	}
	st, err := pl.em.Stats()
	if err != nil {
		return nil, err
	}
	return st, checkRing(st)
}

// Stop unmounts the emulated tiers and keeps their final counters; unless Keep, it
// removes their backing files and the data directory it made in a user's tier when
// the engine left it empty. Close the engine first. Safe to call more than once.
func (pl *Placed) Stop() error {
	pl.once.Do(func() {
		if pl.detach != nil {
			pl.detach()
		}
		if pl.em != nil {
			pl.final, pl.stopErr = pl.em.Stop()
		}
		for _, d := range pl.created {
			os.Remove(d) // only when empty: a kept database stays
		}
		if !pl.opts.Keep && pl.stopErr == nil {
			pl.removeTiers()
		}
	})
	return pl.stopErr
}

// removeTiers removes the emulated tiers' directories under OUT/tiers, and OUT/tiers
// when that leaves it empty. Never while mounted: the mounts are gone (or Start failed,
// and emulator.Start leaves nothing mounted).
func (pl *Placed) removeTiers() {
	for _, root := range pl.roots {
		os.RemoveAll(root)
	}
	if len(pl.roots) > 0 {
		os.Remove(filepath.Dir(pl.roots[0]))
	}
}

// Models are the device models of the emulated tiers by name, as Finish built them
// for the storage section (fresh, busy 0: what a tier is billed for and what making
// its devices emitted do not depend on the run). Nil before Finish and on a nil
// Placed.
func (pl *Placed) Models() map[string]device.Model {
	if pl == nil {
		return nil
	}
	return pl.models
}

// Finish stops the emulator and returns the storage section of a result, with CO2 at
// grid intensity gPerKWh. With a Stop error it returns what it has and the error.
func (pl *Placed) Finish(gPerKWh float64) (*result.Storage, error) {
	err := pl.Stop()
	pl.models = map[string]device.Model{}
	s := &result.Storage{
		Placement:           map[string]string{},
		FlushMethod:         pl.opts.FlushMethod,
		Settings:            pl.applied,
		GridIntensity:       gPerKWh,
		GridIntensitySource: energy.GridSource(gPerKWh),
		EnergyModel:         energyModel,
		Emulator:            pl.emu,
	}
	for _, class := range AllClasses {
		if t, ok := pl.plan.Tier(class); ok {
			s.Placement[string(class)] = t.Name
		}
	}
	for _, t := range pl.plan.Tiers {
		tr := result.TierResult{Name: t.Name, Kind: "directory", Dir: pl.dirs[t.Name], Classes: []string{}, TraceFile: pl.traces[t.Name]}
		for _, class := range AllClasses {
			if pl.plan.Classes.of(class) == t.Name {
				tr.Classes = append(tr.Classes, string(class))
			}
		}
		if t.Emulated() {
			tr.Kind, tr.Spec = "emulated", t.Spec
			var m device.Model
			i := slices.IndexFunc(pl.final, func(d emulator.DeviceStats) bool { return d.Name == t.Name })
			if i >= 0 {
				var idleJ float64
				tr.Profile, idleJ, m = profileInfo(pl.reg, t.Spec, pl.final[i].Elapsed)
				tr.Device = deviceResult(pl.final[i], idleJ, gPerKWh)
				s.EnergyJ += tr.Device.EnergyJ
			} else {
				tr.Profile, _, m = profileInfo(pl.reg, t.Spec, 0)
				if err == nil {
					err = fmt.Errorf("%s: the emulator returned no final counters", pl.plan.flag(t.Name))
				}
			}
			if m != nil {
				pl.models[t.Name] = m
			}
		}
		s.Tiers = append(s.Tiers, tr)
	}
	s.CO2g = energy.CO2Grams(s.EnergyJ, gPerKWh)
	if rerr := checkRing(pl.final); rerr != nil {
		err = errors.Join(err, rerr)
	}
	return s, err
}

// TooFastError is the emulator's refusal of a tier's device as too fast for this host,
// named by the flag that made the tier; errors.As finds the emulator's figures in it.
type TooFastError struct {
	Flag string // "--tier fast=nvme", "--data dram-ssd"
	*emulator.TooFastError
}

func (e *TooFastError) Error() string {
	return e.Flag + ": " + e.TooFastError.Error() + "; or give the tier a slower profile"
}

func (e *TooFastError) Unwrap() error { return e.TooFastError }
