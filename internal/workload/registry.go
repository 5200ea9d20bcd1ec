package workload

import (
	"context"
	"fmt"
	"maps"
	"slices"
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

// CauseTaker is implemented by results that take a cause the lifecycle finds only
// once the phase has ended: a process the run depended on (the emulator's server, the
// managed database server) died under it. TakeCause marks the run failed with cause
// first, before what the workload saw fail, which followed from it.
type CauseTaker interface {
	TakeCause(cause string)
}

// Result is what a workload's result type implements: its headline numbers and how
// its run ended. A result file is read into one (ResultMeta.New) by its benchmark
// member.
type Result interface {
	Headliner
	Statuser
}

// Meta describes a workload fully, for the registry, the command line built from it,
// studies, and the reports that read its results: none of them names a workload.
type Meta struct {
	// Name is the workload's name and command: tpch, tpcc, oltp, postmark.
	Name string
	// Title names it for people: "TPC-H", "OLTP mix".
	Title string
	// Aliases are older names still accepted wherever Name is (a command, a study
	// file's workload).
	Aliases []string
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
	// Result describes the result file (result.json) its run phase writes.
	Result ResultMeta
}

// ResultMeta describes a workload's result file: how to tell it from another
// workload's, what to decode it into, and its headline metrics.
type ResultMeta struct {
	// Benchmarks are the values of the file's "benchmark" member that name this
	// workload: the first is the one it writes (its Name), the others older ones that
	// are still read.
	Benchmarks []string
	// Untagged, when set, is a member that makes a file without a benchmark member
	// this workload's: results written before the workload named itself.
	Untagged string
	// New returns an empty result to decode the file into.
	New func() Result
	// Headline describes the metrics its results' HeadlineMetrics report.
	Headline []MetricInfo
}

// MetricInfo describes a headline metric: its name, unit and direction as
// result.Metric carries them, its title as people write it, and what it counts.
type MetricInfo struct {
	Name string
	// Title is the metric's name in a report's text, as its specification or users
	// write it: "QphH@Size" for qphh_at_size, "NOPM" for nopm.
	Title  string
	Unit   string
	Better result.Better
	What   string
}

// Label is the metric's Title, or its Name when it has none.
func (mi MetricInfo) Label() string {
	if mi.Title != "" {
		return mi.Title
	}
	return mi.Name
}

// Of is the metric with value v, as a result's HeadlineMetrics reports it.
func (mi MetricInfo) Of(v float64) result.Metric {
	return result.Metric{Name: mi.Name, Value: v, Unit: mi.Unit, Better: mi.Better}
}

// Metric is the description of the headline metric name, if the workload has it.
func (m Meta) Metric(name string) (MetricInfo, bool) {
	for _, mi := range m.Result.Headline {
		if mi.Name == name {
			return mi, true
		}
	}
	return MetricInfo{}, false
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
	// aliases and benchmarks map an alias and a result file's benchmark value to the
	// workload's name.
	aliases    = map[string]string{}
	benchmarks = map[string]string{}
)

// Register makes a workload available by its name and aliases, from its package's
// init(); it panics on an incomplete Meta, and on a name, alias or benchmark value
// another workload has, as database/sql does, because those are programming errors.
func Register(m Meta) {
	mu.Lock()
	defer mu.Unlock()
	if m.Name == "" || m.Title == "" || m.New == nil || len(m.Phases) == 0 {
		panic("workload: Register needs a name, a title, New and phases")
	}
	if m.Result.New == nil || len(m.Result.Benchmarks) == 0 || m.Result.Benchmarks[0] != m.Name {
		panic("workload: Register needs " + m.Name + "'s result type, and its name as the first benchmark value")
	}
	for _, n := range append([]string{m.Name}, m.Aliases...) {
		if _, dup := registry[n]; dup {
			panic("workload: Register called twice for " + n)
		}
		if _, dup := aliases[n]; dup {
			panic("workload: Register called twice for " + n)
		}
	}
	for _, b := range m.Result.Benchmarks {
		if _, dup := benchmarks[b]; dup {
			panic("workload: two workloads write results of benchmark " + b)
		}
	}
	registry[m.Name] = m
	for _, a := range m.Aliases {
		aliases[a] = m.Name
	}
	for _, b := range m.Result.Benchmarks {
		benchmarks[b] = m.Name
	}
}

// Get is the workload registered as name, or as one of its aliases.
func Get(name string) (Meta, error) {
	mu.Lock()
	if a, ok := aliases[name]; ok {
		name = a
	}
	m, ok := registry[name]
	mu.Unlock()
	if !ok {
		return Meta{}, fmt.Errorf("unknown workload %q: valid workloads are %s", name, strings.Join(Names(), ", "))
	}
	return m, nil
}

// Names lists the registered workloads, sorted, without their aliases.
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

// ForResult is the workload that wrote a result file whose "benchmark" member is
// benchmark ("" when it has none) and which has the members has says it has: the
// workload that claims benchmark, current or old, or for a file without one the
// workload whose older results had its Untagged member.
func ForResult(benchmark string, has func(member string) bool) (Meta, bool) {
	mu.Lock()
	defer mu.Unlock()
	if benchmark != "" {
		m, ok := registry[benchmarks[benchmark]]
		return m, ok
	}
	for _, n := range slices.Sorted(maps.Keys(registry)) {
		if m := registry[n]; m.Result.Untagged != "" && has(m.Result.Untagged) {
			return m, true
		}
	}
	return Meta{}, false
}
