package tpch

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"tierbench/internal/capacity"
	"tierbench/internal/engine"
	"tierbench/internal/params"
	"tierbench/internal/workload"
	"tierbench/internal/workload/tpch/dbgen"
	"tierbench/internal/workload/tpch/qgen"
)

// exitValidationFailed is the status of a run whose answers were wrong.
const exitValidationFailed = 3

// Workload is TPC-H as the run lifecycle runs it: one phase, run (the load, power
// and throughput tests), with its parameters.
type Workload struct {
	set                     *params.Set
	sfText, validateAgainst string
	streams                 int
	seed                    int64
	validate, useDefault    bool
	skipLoad                bool
	queryTimeout            time.Duration
	// sf is the scale factor Prepare read.
	sf float64
}

// New returns TPC-H with its parameters at their defaults.
func New() *Workload {
	b := &Workload{set: params.NewSet("tpch run")}
	s := b.set
	s.String(&b.sfText, "sf", "1", params.Float, "scale factor (0.01 and up; the spec's official sizes are 1, 10, 30, 100, ...)")
	s.Int(&b.streams, "streams", 0, fmt.Sprintf("query streams of the throughput test, up to %d (0 = the spec minimum for the SF; 2 below SF 1)", MaxStreams))
	s.Seed(&b.seed, "seed", 0, 0, qgen.MaxSeed, "qgen seed of the power test, decimal; stream s uses seed + s (0 = the end-of-load timestamp mmddhhmmss, as the spec says)")
	s.Bool(&b.validate, "validate", false, "check every answer against the TPC's SF 1 qualification answers (implies --default-params)")
	s.Enum(&b.validateAgainst, "validate-against", "", engine.Names(), "compare every answer with a second engine (sqlite, postgres, mysql) loaded with the same data")
	s.Bool(&b.useDefault, "default-params", false, "use the qualification parameters (qgen -d) instead of seeded ones")
	s.Bool(&b.skipLoad, "skip-load", false, "reuse the database an earlier run kept (--keep-db) in --db; refresh functions continue with the next update sets")
	s.Duration(&b.queryTimeout, "query-timeout", 0, "cancel a query that runs longer than this, e.g. 10m (the run then has no official metric)")
	return b
}

// Params are the run phase's parameters (nil for another phase).
func (b *Workload) Params(p workload.Phase) *params.Set { return workload.RunOnly(p, b.set) }

// Prepare checks the parameters and says what the run asks: result.json, the kept
// database with --skip-load, and a session for each query stream and the refresh
// stream (a managed server's connection limit is sized to them).
func (b *Workload) Prepare(p workload.Phase) (workload.Request, error) {
	if p != workload.Run {
		return workload.Request{}, &workload.NoPhaseError{Workload: "tpch", Phase: p}
	}
	sf, err := ParseSF(b.sfText)
	if err != nil {
		return workload.Request{}, err
	}
	b.sf = sf
	if b.streams < 0 || b.streams > MaxStreams {
		return workload.Request{}, fmt.Errorf("--streams %d: give 0 (the spec minimum for the SF) up to %d (the power test uses update set 1, the throughput test sets 2..S+1, and dbgen's sets from %d on delete nothing)",
			b.streams, MaxStreams, MaxUpdateSets+1)
	}
	runStreams := b.streams
	if runStreams == 0 {
		runStreams = MinStreams(sf)
	}
	if err := CheckSeeds(b.seed, runStreams, b.useDefault || b.validate); err != nil {
		return workload.Request{}, fmt.Errorf("--%w", err) // "--seed N ..."
	}
	if b.queryTimeout < 0 {
		return workload.Request{}, fmt.Errorf("--query-timeout %s: give a positive duration such as 10m, or 0 for none", b.queryTimeout)
	}
	if b.validate && b.validateAgainst != "" {
		return workload.Request{}, fmt.Errorf("--validate and --validate-against are exclusive: --validate checks the TPC's SF 1 answers, --validate-against compares with another engine")
	}
	if b.validate && sf != 1 {
		return workload.Request{}, fmt.Errorf("--validate compares with the TPC's answers, which exist only at SF 1: use --sf 1, or --validate-against ENGINE at other scale factors")
	}
	if b.validateAgainst != "" {
		if _, err := engine.DriverOf(strings.ToLower(b.validateAgainst)); err != nil {
			return workload.Request{}, fmt.Errorf("--validate-against %q: unknown engine: valid engines are %s", b.validateAgainst, strings.Join(engine.Names(), ", "))
		}
	}
	return workload.Request{Results: []string{ResultFile}, MustExist: b.skipLoad, Sessions: runStreams + 1,
		// refused before tiers are placed and a server started; Run checks again with
		// the engine's own directory for callers outside the lifecycle
		Needs: func(f workload.EngineFacts) ([]capacity.Need, error) {
			mode := engine.Managed
			if f.External {
				mode = engine.External
			}
			cfg := RunConfig{SF: sf, SkipLoad: b.skipLoad, DatabaseDir: f.DataDir, OutDir: f.Out, BufferBytes: f.BufferBytes}
			return cfg.needs(f.Dialect, mode, runStreams), nil
		}}, nil
}

// Run runs the load, power and throughput tests.
func (b *Workload) Run(ctx context.Context, env workload.Env) (*workload.Report, error) {
	ecfg := env.EngineConfig()
	rc := RunConfig{
		SF: b.sf, Streams: b.streams, Seed: b.seed, UseDefaultParams: b.useDefault || b.validate,
		Validate: b.validate, QueryTimeout: b.queryTimeout, OutDir: env.Out(), Checkpoint: env.Checkpoint, SkipLoad: b.skipLoad,
		Log: env.Stderr(), Progress: env.Progress(), BufferBytes: ecfg.BufferBytes, IgnoreLimits: env.IgnoreLimits(),
		Mark: env.Mark,
	}
	if ecfg.DSN == "" {
		rc.DatabaseDir = ecfg.Dir
	}
	if b.validateAgainst != "" {
		ocfg := engine.Config{Name: strings.ToLower(b.validateAgainst), Dir: filepath.Join(env.Out(), "validate-db"),
			ClientIO: engine.ClientIOAuto, Traversable: []string{env.Out()}}
		other, err := engine.Open(ctx, ocfg)
		if err != nil {
			return nil, fmt.Errorf("--validate-against: %w", err) // the engine names itself
		}
		defer func() {
			other.Close()
			os.Remove(ocfg.Dir) // fails harmlessly when the directory is not empty
		}()
		rc.ValidateAgainst = other
	}
	res, err := Run(ctx, env.Engine(), rc)
	if res == nil {
		return nil, err
	}
	return &workload.Report{
		Result: res, File: ResultFile, Announce: true,
		Summary: func(w io.Writer) { Summary(w, res) },
		Done: func(io.Writer) error {
			if v := res.Validation; v != nil && !v.Passed {
				return &workload.ExitError{Code: exitValidationFailed, Err: fmt.Errorf("answer validation failed (%d mismatches): see the summary above", len(v.Failures))}
			}
			return nil
		},
	}, err
}

// ParseSF reads --sf: a finite number of at least 0.01, as dbgen takes.
func ParseSF(s string) (float64, error) {
	sf, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(sf) || math.IsInf(sf, 0) {
		return 0, fmt.Errorf("--sf %q is not a number: give a scale factor such as 0.01, 0.1, 1 or 10", s)
	}
	if sf < 0.01 {
		return 0, fmt.Errorf("--sf %v is too small: the scale factor must be at least 0.01", s)
	}
	if sf > dbgen.MaxSF {
		return 0, fmt.Errorf("--sf %v is too large: TPC-H defines scale factors up to %d", s, dbgen.MaxSF)
	}
	if sf > 1 && sf != math.Trunc(sf) {
		// dbgen truncates such scale factors silently; a benchmark must not.
		return 0, fmt.Errorf("--sf %v: scale factors above 1 must be whole numbers (fractional ones are allowed below 1)", s)
	}
	return sf, nil
}
