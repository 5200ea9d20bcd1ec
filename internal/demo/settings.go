package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
	"tierbench/internal/params"
	"tierbench/internal/placement"
	"tierbench/internal/rundir"
	"tierbench/internal/workload/tpch"
)

// Settings are the parameters of `tierbench demo`; Run checks them into a Config,
// runs it and prints the table.
type Settings struct {
	set              *params.Set
	out, sf, devices string
	pageCache, cache string
	emulatorPath     string
	profiles         []string
	gridIntensity    float64
	asJSON           bool
}

// NewSettings returns the demo's parameters at their defaults.
func NewSettings() *Settings {
	s := &Settings{set: params.NewSet("demo")}
	p := s.set
	p.String(&s.out, "out", "", params.String, "keep each run's result.json in OUT/<device>/ (default: a temporary directory, removed)")
	p.Bool(&s.asJSON, "json", false, "print the table as a JSON list of rows")
	p.String(&s.sf, "sf", fmt.Sprint(DefaultSF), params.Float, "TPC-H scale factor")
	p.String(&s.devices, "devices", "", params.String, "comma-separated device profiles instead of the default four (no substitution)")
	p.String(&s.pageCache, "page-cache", fmt.Sprintf("%dMiB", DefaultPageCache>>20), params.String, "page cache model in front of each device (the emulated machine's RAM), or none")
	p.String(&s.cache, "cache", fmt.Sprintf("%dKiB", DefaultCacheBytes>>10), params.String, "SQLite cache size")
	p.Float(&s.gridIntensity, "grid-intensity", placement.DefaultGridIntensity, "grams of CO2 per kWh for the devices' CO2 in result.json (475: the "+placement.GridIntensitySource+")")
	p.List(&s.profiles, "profiles", "device profile file or directory of *.yaml files (default: "+device.DefaultUserDir()+" if it exists)")
	params.Parsed(p, &s.emulatorPath, "emulator", emulator.PathAuto, params.Enum, emulator.ParsePath,
		"how the devices are emulated: preload (SQLite's VFS, a few us a request), fuse (a FUSE mount), or auto (preload)").
		Choices = []string{emulator.PathFUSE, emulator.PathPreload, emulator.PathAuto}
	return s
}

// Params are the parameters, for a command line.
func (s *Settings) Params() *params.Set { return s.set }

// Config checks the parameters into a demo's configuration, before anything runs.
// OutDir is left to Run: --out, or a temporary directory.
func (s *Settings) Config() (Config, error) {
	cfg := Config{GridIntensity: s.gridIntensity}
	var err error
	if cfg.SF, err = tpch.ParseSF(s.sf); err != nil {
		return cfg, err
	}
	if math.IsNaN(s.gridIntensity) || s.gridIntensity < 0 {
		return cfg, fmt.Errorf("--grid-intensity %v: give grams of CO2 per kWh, 0 or more", s.gridIntensity)
	}
	if cfg.CacheBytes, err = params.ParseSize("--cache", s.cache); err != nil {
		return cfg, err
	}
	if cfg.CacheBytes < 64<<10 {
		return cfg, fmt.Errorf("--cache %s: give at least 64KiB", s.cache)
	}
	if strings.EqualFold(strings.TrimSpace(s.pageCache), "none") {
		cfg.PageCache = -1
	} else if cfg.PageCache, err = params.ParseSize("--page-cache", s.pageCache); err != nil {
		return cfg, err
	} else if cfg.PageCache < 1<<20 {
		return cfg, fmt.Errorf("--page-cache %s: give at least 1MiB, or none", s.pageCache)
	}
	paths, err := device.ProfilePaths(s.profiles)
	if err != nil {
		return cfg, err
	}
	cfg.Emulator.Profiles, cfg.Emulator.Path = paths, s.emulatorPath
	if cfg.Registry, err = device.Load(paths...); err != nil {
		return cfg, fmt.Errorf("--profiles: %w", err)
	}
	if s.devices != "" {
		for _, d := range strings.Split(s.devices, ",") {
			d = strings.TrimSpace(d)
			if _, err := cfg.Registry.Lookup(d); err != nil {
				return cfg, fmt.Errorf("--devices: %w", err)
			}
			cfg.Slots = append(cfg.Slots, Slot{Want: d})
		}
	}
	return cfg, nil
}

// Output is where Run writes: the table (Stdout), a line per step (Log), progress
// bars (Progress, nil: none), and the command line its locks record.
type Output struct {
	Stdout, Log, Progress io.Writer
	Command               string
}

// Run checks the parameters (Config), runs every device in OUT (--out, kept) or in a
// temporary directory it removes, and prints the rows it has, a table or JSON, also
// when a device failed or Ctrl-C stopped it.
func (s *Settings) Run(ctx context.Context, out Output) error {
	cfg, err := s.Config()
	if err != nil {
		return err
	}
	keep := s.out != ""
	if keep {
		if err := rundir.EnsureWritable("--out", s.out); err != nil {
			return err
		}
		cfg.OutDir = s.out
	} else {
		if cfg.OutDir, err = os.MkdirTemp("", "tierbench-demo-"); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		defer os.RemoveAll(cfg.OutDir)
	}
	if err := os.Chmod(cfg.OutDir, 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	cfg.Log, cfg.Progress, cfg.Command = out.Log, out.Progress, out.Command
	if err := cfg.Defaults(); err != nil {
		return err
	}
	rows, err := Run(ctx, cfg)
	if !keep {
		for i := range rows {
			rows[i].Result = "" // removed with the directory
		}
	}
	if len(rows) > 0 {
		if s.asJSON {
			if werr := WriteJSON(out.Stdout, rows); werr != nil {
				return werr
			}
		} else {
			WriteTable(out.Stdout, cfg, rows)
			if keep {
				fmt.Fprintf(out.Stdout, "results: %s\n", filepath.Join(s.out, "<device>", "result.json"))
			}
		}
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted: %w", err)
	}
	return err
}
