package oltp

import (
	"context"
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

// Workload is a transaction mix as the run lifecycle runs it: load and run, each
// with its parameters. Its database stays between the phases.
type Workload struct {
	load, run *params.Set

	loadMix, runMix string
	scale           float64
	loading         vuser.LoadParams

	users vuser.RunParams
	think time.Duration
	// mix is the mix the phase runs, read by Prepare.
	mix *Mix
}

// New returns the mixes with their parameters at their defaults.
func New() *Workload {
	b := &Workload{load: params.NewSet("oltp load"), run: params.NewSet("oltp run")}
	mixHelp := "bundled mix name (" + strings.Join(Bundled(), ", ") + ") or path of a mix file"
	b.load.String(&b.loadMix, "mix", "", params.String, mixHelp).Require()
	b.load.Float(&b.scale, "scale", 0, "multiply the mix's table rows by this factor (0: the mix's own scale)")
	b.loading.Register(b.load)
	b.run.String(&b.runMix, "mix", "", params.String, mixHelp).Require()
	b.users.Register(b.run, "seed of the users' parameters")
	b.run.Duration(&b.think, "think", 0, "think time after each transaction, e.g. 100ms (closed loop; 0: none)")
	return b
}

// Params are a phase's parameters (nil for a phase mixes do not have).
func (b *Workload) Params(p workload.Phase) *params.Set {
	switch p {
	case workload.Load:
		return b.load
	case workload.Run:
		return b.run
	}
	return nil
}

// Prepare checks a phase's parameters, reads the mix, and says what the phase asks
// of the run.
func (b *Workload) Prepare(p workload.Phase) (workload.Request, error) {
	switch p {
	case workload.Load:
		if err := b.loading.Check(); err != nil {
			return workload.Request{}, err
		}
		m, err := openMix(b.loadMix, b.scale)
		if err != nil {
			return workload.Request{}, err
		}
		b.mix = m
		return b.loading.Request(LoadInfoFile, func(f workload.EngineFacts) (capacity.Need, error) {
			return LoadNeed(m, m.Scale, b.loading.Loaders, f.Dialect, f.External, f.DataDir)
		}), nil
	case workload.Run:
		if err := b.users.Check(); err != nil {
			return workload.Request{}, err
		}
		if b.think < 0 {
			return workload.Request{}, fmt.Errorf("--think %s cannot be negative", b.think)
		}
		if err := b.users.ThinkCheck(b.think > 0); err != nil {
			return workload.Request{}, err
		}
		m, err := openMix(b.runMix, 0)
		if err != nil {
			return workload.Request{}, err
		}
		b.mix = m
		return b.users.Request("oltp run", &workload.NeedsLoad{File: LoadInfoFile, Command: "oltp load --mix " + b.runMix, Read: b.readLoad}), nil
	}
	return workload.Request{}, &workload.NoPhaseError{Workload: "oltp", Phase: p}
}

// readLoad reads the load in out and refuses another mix's data (on an external
// server the data is the user's to know).
func (b *Workload) readLoad(out string, external bool, notes io.Writer) (*engine.Info, error) {
	li, err := ReadLoadInfo(out)
	if err != nil || li == nil {
		return nil, err
	}
	if li.Mix != b.mix.Name && !external {
		return nil, fmt.Errorf("--mix %s: %s holds the %s mix's data: run `tierbench oltp load --mix %s --out %s` first", b.runMix, out, li.Mix, b.runMix, out)
	} else if li.MixSHA256 != b.mix.SHA256 {
		fmt.Fprintf(notes, "note: the mix file changed since it was loaded (%s)\n", li.MixFile)
	}
	return &li.Engine, nil
}

// openMix reads --mix and applies --scale.
func openMix(name string, scale float64) (*Mix, error) {
	m, err := Open(name)
	if err != nil {
		return nil, fmt.Errorf("--mix: %w", err)
	}
	if scale == 0 { // the flag's default
		return m, nil
	}
	if err := m.CheckScale(scale); err != nil {
		return nil, fmt.Errorf("--scale %v: %w", scale, err)
	}
	m.Scale = scale
	return m, nil
}

// Load creates the mix's tables and populates them.
func (b *Workload) Load(ctx context.Context, env workload.Env) (*workload.Report, error) {
	m := b.mix
	info, err := Load(ctx, env.Engine(), m, LoadConfig{Scale: m.Scale, Seed: b.loading.Seed, Loaders: b.loading.Loaders, Progress: env.Progress()})
	if err != nil {
		return nil, err
	}
	var parts []string
	for _, t := range m.Tables {
		parts = append(parts, fmt.Sprintf("%s %d", t.Name, info.Rows[t.Name]))
	}
	fmt.Fprintf(env.Stdout(), "loaded mix %s at scale %g into %s %s in %.1f s with %d loader(s): %s\n",
		m.Name, m.Scale, info.Engine.Name, info.Engine.Version, info.Seconds, info.Loaders, strings.Join(parts, ", "))
	return &workload.Report{Result: info, File: LoadInfoFile, StorageFile: vuser.LoadStorageFile}, nil
}

// Run runs the mix with the users.
func (b *Workload) Run(ctx context.Context, env workload.Env) (*workload.Report, error) {
	m := b.mix
	res, err := Run(ctx, env.Engine(), m, RunConfig{Plan: b.users.Plan(env), Think: b.think})
	if res == nil {
		return nil, err
	}
	return &workload.Report{Result: res, File: ResultFile, Announce: true,
		Summary: func(w io.Writer) { WriteSummary(w, res, m.TxnNames()) }}, err
}
