package workload

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"tierbench/internal/params"
	"tierbench/internal/result"
)

// Workload is a registered benchmark: a fresh one (Meta.New) holds its parameters at
// their defaults. Its phases are the optional interfaces it implements: Loader,
// Runner, Checker.
type Workload interface {
	Meta() Meta
	// Params are a phase's parameters; nil for a phase the workload does not have.
	Params(Phase) *params.Set
	// Prepare checks a phase's parameters, once they are set, and says what the phase
	// asks of the run. It runs nothing.
	Prepare(Phase) (Request, error)
}

// Loader, Runner and Checker are the phases a workload may have.
type Loader interface {
	Load(ctx context.Context, env Env) (*Report, error)
}

type Runner interface {
	Run(ctx context.Context, env Env) (*Report, error)
}

type Checker interface {
	Check(ctx context.Context, env Env) (*Report, error)
}

// Do runs phase p of w in env.
func Do(ctx context.Context, w Workload, p Phase, env Env) (*Report, error) {
	switch p {
	case Load:
		if l, ok := w.(Loader); ok {
			return l.Load(ctx, env)
		}
	case Run:
		if r, ok := w.(Runner); ok {
			return r.Run(ctx, env)
		}
	case Check:
		if c, ok := w.(Checker); ok {
			return c.Check(ctx, env)
		}
	}
	return nil, fmt.Errorf("%s has no phase %q", w.Meta().Name, p)
}

// Headliner is implemented by results that have headline numbers, for summaries and
// study tables.
type Headliner interface {
	HeadlineMetrics() []result.Metric
}

// Statuser is implemented by results that say how their run ended: ok, or failed
// (or interrupted) and why, also when the phase returned no error (a failed answer
// validation).
type Statuser interface {
	RunStatus() (result.Status, string)
}

// Meta describes a workload for the registry, the command line built from it and
// studies.
type Meta struct {
	// Name is the workload's name and command: tpch, tpcc, oltp, files.
	Name string
	// Short and Long are its command's help.
	Short, Long string
	// Engine says the workload runs on a database engine; without one it runs in a
	// directory (the data tier's, or --dir).
	Engine bool
	// KeepsDatabase says its phases work on one database, which stays between them.
	KeepsDatabase bool
	// OutHelp is --out's help, OutWhat what --out is for when it is missing.
	OutHelp, OutWhat string
	// Phases are its phases, in the order a study runs them.
	Phases []PhaseMeta
	// New returns the workload with its parameters at their defaults.
	New func() Workload
}

// PhaseMeta describes one phase and its command.
type PhaseMeta struct {
	Phase                Phase
	Short, Long, Example string
	// Estimates says the phase checks what it needs of the host before it starts (it
	// takes --ignore-limits).
	Estimates bool
	// Sections says the phase's result gets the storage and energy sections (it takes
	// the energy flags).
	Sections bool
}

// Phase is the description of phase p, if the workload has it.
func (m Meta) Phase(p Phase) (PhaseMeta, bool) {
	for _, pm := range m.Phases {
		if pm.Phase == p {
			return pm, true
		}
	}
	return PhaseMeta{}, false
}

var (
	mu       sync.Mutex
	registry = map[string]Meta{}
)

// Register makes a workload available by its name, from its package's init(); it
// panics on a duplicate name, as database/sql does, because that is a programming
// error.
func Register(m Meta) {
	mu.Lock()
	defer mu.Unlock()
	if m.Name == "" || m.New == nil || len(m.Phases) == 0 {
		panic("workload: Register needs a name, New and phases")
	}
	if _, dup := registry[m.Name]; dup {
		panic("workload: Register called twice for " + m.Name)
	}
	registry[m.Name] = m
}

// Get is the workload registered as name.
func Get(name string) (Meta, error) {
	mu.Lock()
	m, ok := registry[name]
	mu.Unlock()
	if !ok {
		return Meta{}, fmt.Errorf("unknown workload %q: valid workloads are %s", name, strings.Join(Names(), ", "))
	}
	return m, nil
}

// Names lists the registered workloads, sorted.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
