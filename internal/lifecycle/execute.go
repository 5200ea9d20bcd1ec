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
	"tierbench/internal/exitstatus"
	"tierbench/internal/params"
	"tierbench/internal/placement"
	"tierbench/internal/result"
	"tierbench/internal/workload"
)

// Spec is one execution of a workload: which, its phases in order, and every value of
// its parameters and of the run settings, by flag name, as the text a study file or a
// command line gives (NewJob parses each once, as it sets it). A name that only some
// phases have applies to those; "PHASE.NAME" (load.seed) applies to one phase only.
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
	// IO is where Execute writes (Job.Execute takes its own).
	IO IO
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

// Job is a Spec made: each phase's workload and run settings, as parameter sets set
// to the spec's values. A command line sets the same sets from its flags (Params), so
// the values it parses are the ones the phase runs with.
type Job struct {
	spec   Spec
	meta   workload.Meta
	phases []*jobPhase
}

// jobPhase is one phase of a job. It has a workload of its own, as a command has:
// what Prepare reads from the phase's parameters stays in it until the phase runs.
type jobPhase struct {
	phase    workload.Phase
	w        workload.Workload
	own      *params.Set
	settings *Settings
	// req and cfg are what checking the phase found (Job.check): what it asks of the
	// run and the run's configuration, which it runs with.
	req workload.Request
	cfg *Config
}

// optionsFor are the run settings a phase of the workload m takes.
func optionsFor(m workload.Meta, pm workload.PhaseMeta) Options {
	return Options{Engine: m.Engine, KeepDatabase: m.KeepsDatabase, Estimates: pm.Estimates, Sections: pm.Sections,
		Phase: pm.Phase, OutHelp: m.OutHelp, OutWhat: m.OutWhat}
}

// ParamSets are the parameters phase of the workload name takes, at their defaults:
// its own and the run settings', each with its flag name, kind, default and help.
func ParamSets(name string, phase workload.Phase) (own, settings *params.Set, err error) {
	j, err := NewJob(Spec{Workload: name, Phases: []workload.Phase{phase}})
	if err != nil {
		return nil, nil, err
	}
	return j.phases[0].own, j.phases[0].settings.Params(), nil
}

// NewJob makes spec's workload for each phase and sets every value of spec.
func NewJob(spec Spec) (*Job, error) {
	m, err := workload.Get(spec.Workload)
	if err != nil {
		return nil, err
	}
	if len(spec.Phases) == 0 {
		return nil, fmt.Errorf("%s: no phase given: %s has %s", m.Name, m.Name, phaseList(m))
	}
	j := &Job{spec: spec, meta: m}
	for _, p := range spec.Phases {
		pm, ok := m.Phase(p)
		if !ok {
			return nil, fmt.Errorf("%s has no phase %q: it has %s", m.Name, p, phaseList(m))
		}
		s := NewSettings(optionsFor(m, pm))
		s.Plan, s.Registry, s.Emulator = spec.Plan, spec.Registry, spec.Emulator
		w := m.New()
		own := w.Params(p)
		if own == nil {
			own = params.NewSet(m.Name + " " + string(p))
		}
		j.phases = append(j.phases, &jobPhase{phase: p, w: w, own: own, settings: s})
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

// Params are the parameter sets of the job's phases, each phase's own then its run
// settings', for a command line of a one-phase job to register as its flags.
func (j *Job) Params() []*params.Set {
	var sets []*params.Set
	for _, ph := range j.phases {
		sets = append(sets, ph.own, ph.settings.Params())
	}
	return sets
}

// set sets the parameter name in every phase that has it (or in the one phase a
// "PHASE.NAME" names).
func (j *Job) set(name string, values []string) error {
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

func (j *Job) phaseNames(only string) string {
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

// check checks every phase as it would start, without running anything, and keeps
// what it found for the run: its required parameters, its own checks (Prepare: the
// request) and the run settings together (Config: the configuration). Each runs
// once per phase.
func (j *Job) check() error { return j.checkWith(nil) }

// checkWith is check with what v read for earlier specs (nil: nothing shared).
func (j *Job) checkWith(v *Validator) error {
	for _, ph := range j.phases {
		if err := ph.own.CheckRequired(); err != nil {
			return err
		}
		req, err := v.prepare(j.meta.Name, ph)
		if err != nil {
			return err
		}
		if v != nil && ph.settings.Registry == nil {
			ph.settings.Registry = v.registry(ph.settings.profiles)
		}
		cfg, err := ph.settings.Config(req)
		if err != nil {
			return err
		}
		ph.req, ph.cfg = req, cfg
	}
	return nil
}

// Validate checks spec without running anything, as Execute would before it starts:
// the workload and its phases exist, every value names a parameter of one of them and
// parses, and each phase's parameters and the run settings are valid together. Errors
// name the flag. What only a run can find (a load missing from OUT, a host too small,
// a server that does not start) is left to Execute.
func Validate(spec Spec) error {
	j, err := NewJob(spec)
	if err != nil {
		return err
	}
	return j.check()
}

// Validator validates many specs that share their inputs, as a study's cells do, and
// reads what they share once rather than once per spec: the device profiles of each
// --profiles, and what a phase asks of the run for each set of its own parameters
// (Prepare, which reads a mix's file, for one). Every spec is still checked whole, as
// Validate checks it. The zero Validator is ready to use; it is not safe for
// concurrent use.
type Validator struct {
	registries map[string]*device.Registry
	requests   map[string]prepared
}

// prepared is what a phase's Prepare returned.
type prepared struct {
	req workload.Request
	err error
}

// Validate is Validate(spec), with what v read for earlier specs.
func (v *Validator) Validate(spec Spec) error {
	j, err := NewJob(spec)
	if err != nil {
		return err
	}
	return j.checkWith(v)
}

// prepare is what phase ph of workload name asks of the run: Prepare's answer for
// the phase's own parameters, read once per set of their values (nil v: every time).
func (v *Validator) prepare(name string, ph *jobPhase) (workload.Request, error) {
	if v == nil {
		return ph.w.Prepare(ph.phase)
	}
	key := name + "\x00" + string(ph.phase) + "\x00" + strings.Join(ph.own.Args(), "\x00")
	if p, ok := v.requests[key]; ok {
		return p.req, p.err
	}
	req, err := ph.w.Prepare(ph.phase)
	if v.requests == nil || len(v.requests) >= maxPrepared {
		// A request holds its phase's workload (a parsed mix): cells whose own
		// values all differ share nothing, and keeping every one would hold them all.
		v.requests = map[string]prepared{}
	}
	v.requests[key] = prepared{req, err}
	return req, err
}

// maxPrepared bounds the requests a Validator keeps.
const maxPrepared = 64

// registry is the device registry of the profiles given (nil when they do not load:
// Config then says why, as it would without v).
func (v *Validator) registry(profiles []string) *device.Registry {
	key := strings.Join(profiles, "\x00")
	if reg, ok := v.registries[key]; ok {
		return reg
	}
	var reg *device.Registry
	if paths, err := device.ProfilePaths(profiles); err == nil {
		reg, _ = device.Load(paths...)
	}
	if v.registries == nil {
		v.registries = map[string]*device.Registry{}
	}
	v.registries[key] = reg
	return reg
}

// Execute runs spec's phases in order (Job.Execute) with spec.IO.
func Execute(ctx context.Context, spec Spec) (*Outcome, error) {
	j, err := NewJob(spec)
	if err != nil {
		return nil, err
	}
	return j.Execute(ctx, spec.IO)
}

// Execute checks every phase, then runs them in order, each through the run
// lifecycle (start, the phase, Finish), writing to out. It stops at the first phase
// that fails and returns the outcome so far with its error.
func (j *Job) Execute(ctx context.Context, out IO) (*Outcome, error) {
	if err := j.check(); err != nil {
		return nil, err
	}
	o := &Outcome{Workload: j.meta.Name}
	for _, ph := range j.phases {
		po, err := j.run(ctx, ph, out)
		if po != nil {
			o.Phases = append(o.Phases, *po)
		}
		if err != nil {
			return o, err
		}
	}
	return o, nil
}

// run runs one phase with what check found: nil outcome when it never started.
func (j *Job) run(ctx context.Context, ph *jobPhase, out IO) (*PhaseOutcome, error) {
	r, err := ph.settings.start(ctx, ph.req, ph.cfg, out, j.spec.Monitor)
	if err != nil {
		return nil, err
	}
	rep, runErr := workload.Do(ctx, ph.w, ph.phase, r)
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
	var died *exitstatus.DiedError
	switch {
	case errors.Is(err, context.Canceled):
		po.Status, po.Why = result.StatusInterrupted, err.Error()
	case errors.As(err, &died):
		// What failed after the emulator's or the database's server died failed
		// because it did (Finish put the earliest death first).
		why := died.Error()
		if po.Why != "" && !strings.HasPrefix(po.Why, why) { // a CauseTaker's result has it first already
			why += "; then " + po.Why
		} else if po.Why != "" {
			why = po.Why
		}
		po.Status, po.Why = result.StatusFailed, why
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
	j, err := NewJob(spec)
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
