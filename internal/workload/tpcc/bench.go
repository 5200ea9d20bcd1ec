package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"tierbench/internal/capacity"
	"tierbench/internal/engine"
	"tierbench/internal/params"
	"tierbench/internal/workload"
	"tierbench/internal/workload/vuser"
)

// CheckFile holds what `tpcc check` found.
const CheckFile = "check.json"

// exitCheckFailed is the status of `tpcc check` when a consistency condition fails.
const exitCheckFailed = 3

// Workload is TPC-C as the run lifecycle runs it: load, run and check, each with its
// parameters. Its database stays between the phases.
type Workload struct {
	load, run, check *params.Set

	warehouses int
	loading    vuser.LoadParams

	users   vuser.RunParams
	think   bool
	mixText string
	mix     Mix
	// loaded is the load the run found in OUT (from NeedsLoad.Read).
	loaded *LoadInfo
}

// New returns TPC-C with its parameters at their defaults.
func New() *Workload {
	b := &Workload{load: params.NewSet("tpcc load"), run: params.NewSet("tpcc run"), check: params.NewSet("tpcc check")}
	b.load.Int(&b.warehouses, "warehouses", 1, "number of warehouses W (each about 110 MB on disk)")
	b.loading.Register(b.load)
	b.users.Register(b.run, "seed of the users' inputs")
	b.run.Bool(&b.think, "think", false, "keying and think times of clause 5.2.5.7 (18 s + 12 s for a New-Order; needs about 10 users per warehouse)")
	b.run.Enum(&b.mixText, "mix", "default", []string{"default", "spec23"}, "transaction deck: default (45/43/4/4/4 of 100) or spec23 (10/10/1/1/1 of 23, clause 5.2.4.2)")
	return b
}

// Params are a phase's parameters (nil for a phase TPC-C does not have).
func (b *Workload) Params(p workload.Phase) *params.Set {
	switch p {
	case workload.Load:
		return b.load
	case workload.Run:
		return b.run
	case workload.Check:
		return b.check
	}
	return nil
}

// Prepare checks a phase's parameters and says what it asks of the run.
func (b *Workload) Prepare(p workload.Phase) (workload.Request, error) {
	switch p {
	case workload.Load:
		if b.warehouses < 1 || b.warehouses > MaxWarehouses {
			return workload.Request{}, fmt.Errorf("--warehouses %d: give 1 to %d (W_ID is a 32-bit INT)", b.warehouses, MaxWarehouses)
		}
		if err := b.loading.Check(); err != nil {
			return workload.Request{}, err
		}
		return b.loading.Request(LoadInfoFile, func(f workload.EngineFacts) (capacity.Need, error) {
			return LoadNeed(b.warehouses, b.loading.Loaders, f.Dialect, f.External, f.DataDir), nil
		}), nil
	case workload.Run:
		if err := b.users.Check(); err != nil {
			return workload.Request{}, err
		}
		if err := b.users.ThinkCheck(b.think); err != nil {
			return workload.Request{}, err
		}
		mix, err := ParseMix(b.mixText)
		if err != nil {
			return workload.Request{}, fmt.Errorf("--%w", err)
		}
		b.mix = mix
		return b.users.Request("tpcc run", b.needsLoad()), nil
	case workload.Check:
		return workload.Request{Results: []string{CheckFile}, MustExist: true, Load: b.needsLoad()}, nil
	}
	return workload.Request{}, &workload.NoPhaseError{Workload: "tpcc", Phase: p}
}

// needsLoad is the load in OUT that run and check work on.
func (b *Workload) needsLoad() *workload.NeedsLoad {
	return &workload.NeedsLoad{File: LoadInfoFile, Command: "tpcc load",
		Read: func(out string, _ bool, _ io.Writer) (*engine.Info, error) {
			li, err := ReadLoadInfo(out)
			if err != nil || li == nil {
				return nil, err
			}
			b.loaded = li
			return &li.Engine, nil
		}}
}

// Load creates the tables and loads the warehouses.
func (b *Workload) Load(ctx context.Context, env workload.Env) (*workload.Report, error) {
	info, err := Load(ctx, env.Engine(), LoadConfig{Warehouses: b.warehouses, Seed: b.loading.Seed, Loaders: b.loading.Loaders, Progress: env.Progress()})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(env.Stdout(), "loaded %d warehouse(s) into %s %s in %.1f s with %d loader(s): %s\n",
		b.warehouses, info.Engine.Name, info.Engine.Version, info.Seconds, info.Loaders, formatRows(info.Rows))
	return &workload.Report{Result: info, File: LoadInfoFile, StorageFile: vuser.LoadStorageFile}, nil
}

// Run runs the mix with the users.
func (b *Workload) Run(ctx context.Context, env workload.Env) (*workload.Report, error) {
	rc := RunConfig{Plan: b.users.Plan(env), Think: b.think, Mix: b.mix}
	if b.loaded != nil {
		rc.Load = b.loaded.Constants // the warehouses are counted in the database
	}
	res, err := Run(ctx, env.Engine(), rc)
	if res == nil {
		return nil, err
	}
	return &workload.Report{Result: res, File: ResultFile, Announce: true,
		Summary: func(w io.Writer) { WriteSummary(w, res) }}, err
}

// Check checks the consistency conditions and prints them; the verdict comes once
// the engine has stopped.
func (b *Workload) Check(ctx context.Context, env workload.Env) (*workload.Report, error) {
	cs, err := Check(ctx, env.Engine())
	WriteCheck(env.Stdout(), cs)
	if err != nil {
		return nil, err
	}
	passed := AllPassed(cs)
	return &workload.Report{
		Result: map[string]any{"passed": passed, "conditions": cs, "checked": time.Now().UTC()}, File: CheckFile,
		Done: func(w io.Writer) error {
			if !passed {
				return &workload.ExitError{Code: exitCheckFailed, Err: errors.New("consistency check failed: see the conditions marked FAIL above")}
			}
			fmt.Fprintln(w, "all 12 consistency conditions pass")
			return nil
		}}, nil
}

func formatRows(rows map[string]int64) string {
	var parts []string
	for _, t := range Tables {
		parts = append(parts, fmt.Sprintf("%s %d", t, rows[t]))
	}
	return strings.Join(parts, ", ")
}
