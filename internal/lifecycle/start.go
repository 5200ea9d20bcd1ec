package lifecycle

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"tierbench/internal/capacity"
	"tierbench/internal/engine"
	"tierbench/internal/placement"
	"tierbench/internal/workload"
)

// start opens a phase configured as cfg (Settings.Config of req). First, before
// anything starts, it checks the load the phase runs on: a phase follows the engine
// that load used, and only when that is not the engine it was configured for (no
// --engine given) is it configured again, for that engine. Then it checks what the
// phase needs of this host (a workload without an engine checks itself:
// Request.Precheck), and opens the run (Open) with the monitor mon (nil: none). A
// phase refused up to there has changed nothing in OUT.
func (s *Settings) start(ctx context.Context, req workload.Request, cfg *Config, out IO, mon Monitor) (*Run, error) {
	if req.Load != nil {
		configured := s.EngineName()
		if err := s.checkLoad(req.Load, out); err != nil {
			return nil, err
		}
		if s.EngineName() != configured {
			var err error
			if cfg, err = s.Config(req); err != nil {
				return nil, err
			}
		}
	}
	if err := checkCapacity(cfg); err != nil {
		return nil, err
	}
	if req.Precheck != nil {
		notes := out.Stderr
		if notes == nil {
			notes = io.Discard
		}
		if err := req.Precheck(ctx, dataDir(cfg), cfg.IgnoreLimits, notes); err != nil {
			return nil, err
		}
	}
	cfg.Monitor = mon
	return Open(ctx, cfg, out)
}

// checkLoad reads the load in OUT that the phase runs on, makes the phase open the
// engine it was loaded into, and refuses a phase on an OUT that holds no load, before
// anything starts: the database lives there (--db and --dsn name it themselves).
func (s *Settings) checkLoad(l *workload.NeedsLoad, out IO) error {
	notes := out.Stderr
	if notes == nil {
		notes = io.Discard
	}
	loaded, err := l.Read(s.out, s.dsn != "", notes)
	if err != nil {
		return err
	}
	if err := s.matchLoaded(l.File, loaded, notes); err != nil {
		return err
	}
	if loaded == nil && s.dsn == "" && s.db == "" {
		return fmt.Errorf("--out %s holds no load (no %s): run `tierbench %s --engine %s --out %s` first", s.out, l.File, l.Command, s.engine, s.out)
	}
	return nil
}

// matchLoaded makes a phase open the engine that OUT's data was loaded into (loaded,
// from file; nil when OUT has no load): without --engine it uses it, with a note; a
// different --engine is an error, not a new, empty database beside the loaded one. A
// load on an external server needs --dsn again (tierbench keeps no DSN). Nothing is
// checked with --dsn or --db, which name the database themselves.
func (s *Settings) matchLoaded(file string, loaded *engine.Info, notes io.Writer) error {
	if loaded == nil || s.dsn != "" || s.db != "" {
		return nil
	}
	where := filepath.Join(s.out, file)
	if loaded.Mode == engine.External {
		return fmt.Errorf("%s: the data was loaded into an external %s server: give --engine %s --dsn DSN (tierbench keeps no DSN)", where, loaded.Name, loaded.Name)
	}
	if strings.EqualFold(s.engine, loaded.Name) {
		return nil
	}
	if s.set.Lookup("engine").Changed() {
		return fmt.Errorf("--engine %s: %s holds data loaded into %s (%s): give --engine %s, or load again with --engine %s", s.engine, s.out, loaded.Name, where, loaded.Name, s.engine)
	}
	fmt.Fprintf(notes, "note: using --engine %s, which %s was loaded into (%s)\n", loaded.Name, s.out, where)
	s.engine = loaded.Name
	return nil
}

// checkCapacity refuses, before anything is started, a phase whose estimate exceeds
// this host's memory or disk (capacity.Check; --ignore-limits skips it).
func checkCapacity(cfg *Config) error {
	req := cfg.Request
	if req.Needs == nil || cfg.Engine == nil {
		return nil
	}
	d, err := engine.DialectOf(cfg.Engine.Name)
	if err != nil {
		return err
	}
	needs, err := req.Needs(workload.EngineFacts{Dialect: d, External: cfg.Engine.DSN != "", DataDir: dataDir(cfg), Out: cfg.Out,
		BufferBytes: cfg.Engine.BufferBytes})
	if err != nil {
		return err
	}
	for _, n := range needs {
		if err := capacity.Check(n, cfg.IgnoreLimits); err != nil {
			return err
		}
	}
	return nil
}

// dataDir is the directory whose file system the database's data (or, without an
// engine, the workload's files) will fill, before anything opens: "" for an external
// server (its disk is not this host's to measure), a real directory given as the
// data's tier, OUT for an emulated tier (its backing files live in OUT/tiers), else
// --db or OUT/db, or without an engine --dir.
func dataDir(cfg *Config) string {
	if cfg.Engine != nil && cfg.Engine.DSN != "" {
		return ""
	}
	if t, ok := cfg.Plan.Tier(placement.Data); ok {
		if t.Emulated() {
			return cfg.Out
		}
		return t.Dir
	}
	if cfg.Engine == nil {
		return cfg.Dir
	}
	return cfg.Engine.Dir
}
