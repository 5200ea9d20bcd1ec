package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
	"tierbench/internal/params"
	"tierbench/internal/placement"
	"tierbench/internal/result"
	"tierbench/internal/workload"
)

// Spec is one execution of a workload: which, its phases in order, and every value of
// its parameters and of the run settings, by flag name, as strings (a study file's
// scalars and lists, a command line's flags). A name that only some phases have
// applies to those; "PHASE.NAME" (load.seed) applies to one phase only.
type Spec struct {
	Workload string
	Phases   []workload.Phase
	Values   map[string][]string
	// Plan, Registry and Emulator are run settings that have no flag: placement given
	// as values (the demo's tiers), a device registry, the emulator's options (tests).
	Plan     *placement.Plan
	Registry *device.Registry
	Emulator emulator.Options
	// Monitor samples each phase (nil: none).
	Monitor Monitor
	IO      IO
}

// Outcome is what an execution produced, phase by phase.
type Outcome struct {
	Workload string
	Phases   []PhaseOutcome
}

// PhaseOutcome is one phase's result, where it was written, its headline numbers and
// how it ended.
type PhaseOutcome struct {
	Phase workload.Phase
	// Result is the phase's result (a *tpch.Result, a *tpcc.LoadInfo...); nil when
	// it produced none.
	Result  any
	File    string
	Metrics []result.Metric
	Status  result.Status
	Why     string
}

// Status is how the execution ended: its first phase that was not ok, or ok.
func (o *Outcome) Status() (result.Status, string) {
	for _, p := range o.Phases {
		if p.Status != result.StatusOK {
			return p.Status, p.Why
		}
	}
	return result.StatusOK, ""
}

// Metrics are the headline numbers of the last phase that has some (a run's, after
// its load's).
func (o *Outcome) Metrics() []result.Metric {
	for i := len(o.Phases) - 1; i >= 0; i-- {
		if len(o.Phases[i].Metrics) > 0 {
			return o.Phases[i].Metrics
		}
	}
	return nil
}

// job is a spec with its workload made and every value set.
type job struct {
	spec   Spec
	meta   workload.Meta
	w      workload.Workload
	phases []jobPhase
}

type jobPhase struct {
	phase    workload.Phase
	own      *params.Set
	settings *Settings
}

// OptionsFor are the run settings a phase of the workload m takes.
func OptionsFor(m workload.Meta, pm workload.PhaseMeta) Options {
	return Options{Engine: m.Engine, KeepDatabase: m.KeepsDatabase, Estimates: pm.Estimates, Sections: pm.Sections,
		Phase: pm.Phase, OutHelp: m.OutHelp, OutWhat: m.OutWhat}
}

// ParamSets are the parameters phase of the workload name takes, at their defaults:
// its own and the run settings', each with its flag name, kind, default and help.
func ParamSets(name string, phase workload.Phase) (own, settings *params.Set, err error) {
	j, err := newJob(Spec{Workload: name, Phases: []workload.Phase{phase}})
	if err != nil {
		return nil, nil, err
	}
	return j.phases[0].own, j.phases[0].settings.Params(), nil
}

// newJob makes spec's workload and sets every value.
func newJob(spec Spec) (*job, error) {
	m, err := workload.Get(spec.Workload)
	if err != nil {
		return nil, err
	}
	if len(spec.Phases) == 0 {
		return nil, fmt.Errorf("%s: no phase given: %s has %s", m.Name, m.Name, phaseList(m))
	}
	j := &job{spec: spec, meta: m, w: m.New()}
	for _, p := range spec.Phases {
		pm, ok := m.Phase(p)
		if !ok {
			return nil, fmt.Errorf("%s has no phase %q: it has %s", m.Name, p, phaseList(m))
		}
		s := NewSettings(OptionsFor(m, pm))
		s.Plan, s.Registry, s.Emulator = spec.Plan, spec.Registry, spec.Emulator
		own := j.w.Params(p)
		if own == nil {
			own = params.NewSet(m.Name + " " + string(p))
		}
		j.phases = append(j.phases, jobPhase{phase: p, own: own, settings: s})
	}
	names := make([]string, 0, len(spec.Values))
	for n := range spec.Values {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := j.set(n, spec.Values[n]); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// set sets the parameter name in every phase that has it (or in the one phase a
// "PHASE.NAME" names).
func (j *job) set(name string, values []string) error {
	only := ""
	if p, n, ok := strings.Cut(name, "."); ok {
		only, name = p, n
	}
	found := false
	for _, ph := range j.phases {
		if only != "" && string(ph.phase) != only {
			continue
		}
		for _, set := range []*params.Set{ph.own, ph.settings.Params()} {
			if set.Lookup(name) == nil {
				continue
			}
			found = true
			if err := set.SetValues(name, values); err != nil {
				return err
			}
		}
	}
	if !found {
		return fmt.Errorf("--%s: %s %s has no such parameter", name, j.meta.Name, j.phaseNames(only))
	}
	return nil
}

func (j *job) phaseNames(only string) string {
	if only != "" {
		return only
	}
	var ps []string
	for _, ph := range j.phases {
		ps = append(ps, string(ph.phase))
	}
	return strings.Join(ps, ", ")
}

func phaseList(m workload.Meta) string {
	var ps []string
	for _, pm := range m.Phases {
		ps = append(ps, string(pm.Phase))
	}
	return strings.Join(ps, ", ")
}

// validate checks every phase as it would start, without running anything: its
// required parameters, its own checks (Prepare) and the run settings (Config).
func (j *job) validate() error {
	for _, ph := range j.phases {
		if err := ph.own.CheckRequired(); err != nil {
			return err
		}
		req, err := j.w.Prepare(ph.phase)
		if err != nil {
			return err
		}
		if _, err := ph.settings.Config(req); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks spec without running anything, as Execute would before it starts:
// the workload and its phases exist, every value names a parameter of one of them and
// parses, and each phase's parameters and the run settings are valid together. Errors
// name the flag. What only a run can find (a load missing from OUT, a host too small,
// a server that does not start) is left to Execute.
func Validate(spec Spec) error {
	j, err := newJob(spec)
	if err != nil {
		return err
	}
	return j.validate()
}

// Execute runs spec's phases in order, each through the run lifecycle (Start, the
// phase, Finish), after validating them all. It stops at the first phase that fails
// and returns the outcome so far with its error.
func Execute(ctx context.Context, spec Spec) (*Outcome, error) {
	j, err := newJob(spec)
	if err != nil {
		return nil, err
	}
	if err := j.validate(); err != nil {
		return nil, err
	}
	o := &Outcome{Workload: j.meta.Name}
	for _, ph := range j.phases {
		po, err := j.run(ctx, ph)
		if po != nil {
			o.Phases = append(o.Phases, *po)
		}
		if err != nil {
			return o, err
		}
	}
	return o, nil
}

// run runs one phase: nil outcome when it never started.
func (j *job) run(ctx context.Context, ph jobPhase) (*PhaseOutcome, error) {
	req, err := j.w.Prepare(ph.phase)
	if err != nil {
		return nil, err
	}
	r, err := Start(ctx, ph.settings, req, j.spec.IO, j.spec.Monitor)
	if err != nil {
		return nil, err
	}
	rep, runErr := workload.Do(ctx, j.w, ph.phase, r)
	err = r.Finish(rep, runErr)
	po := &PhaseOutcome{Phase: ph.phase, Status: result.StatusOK}
	if rep != nil && rep.Result != nil {
		po.Result, po.File = rep.Result, filepath.Join(ph.settings.Out(), rep.File)
		if h, ok := rep.Result.(workload.Headliner); ok {
			po.Metrics = h.HeadlineMetrics()
		}
		if s, ok := rep.Result.(workload.Statuser); ok {
			po.Status, po.Why = s.RunStatus()
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		po.Status, po.Why = result.StatusInterrupted, err.Error()
	case err != nil && po.Status == result.StatusOK:
		po.Status, po.Why = result.StatusFailed, err.Error()
	}
	return po, err
}

// CommandArgs are the command lines that run spec's phases as tierbench commands,
// one per phase (`tpcc load --warehouses=2 --out=...`), for a study that runs each
// cell in a process of its own: parsed back, they set every value as spec does.
// Plan, Registry, Emulator and Monitor have no flags and are not carried.
func CommandArgs(spec Spec) ([][]string, error) {
	j, err := newJob(spec)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, ph := range j.phases {
		args := []string{j.meta.Name, string(ph.phase)}
		args = append(args, ph.own.Args()...)
		args = append(args, ph.settings.Params().Args()...)
		out = append(out, args)
	}
	return out, nil
}
