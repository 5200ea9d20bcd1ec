package workload

import (
	"context"
	"slices"
	"strings"
	"testing"

	"tierbench/internal/params"
	"tierbench/internal/result"
)

// fake is a workload that only runs.
type fake struct{ ran bool }

func (f *fake) Meta() Meta                     { return Meta{Name: "fake"} }
func (f *fake) Params(Phase) *params.Set       { return nil }
func (f *fake) Prepare(Phase) (Request, error) { return Request{}, nil }
func (f *fake) Run(context.Context, Env) (*Report, error) {
	f.ran = true
	return &Report{File: "x"}, nil
}

func TestDo(t *testing.T) {
	f := &fake{}
	if rep, err := Do(context.Background(), f, Run, nil); err != nil || rep.File != "x" || !f.ran {
		t.Errorf("run: %v %v", rep, err)
	}
	if _, err := Do(context.Background(), f, Load, nil); err == nil || !strings.Contains(err.Error(), `fake has no phase "load"`) {
		t.Errorf("load of a workload without one: %v", err)
	}
}

func TestRegisterRefusesAnIncompleteMeta(t *testing.T) {
	for _, m := range []Meta{{}, {Name: "x", Phases: []PhaseMeta{{Phase: Run}}}, {Name: "x", New: func() Workload { return &fake{} }}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%+v) did not panic", m)
				}
			}()
			Register(m)
		}()
	}
	m := Meta{Phases: []PhaseMeta{{Phase: Load}, {Phase: Run, Short: "runs"}}}
	if pm, ok := m.Phase(Run); !ok || pm.Short != "runs" {
		t.Errorf("Phase(run) = %+v, %v", pm, ok)
	}
	if _, ok := m.Phase(Check); ok {
		t.Error("a phase that is not there")
	}
}

// fakeResult is a result with one headline number.
type fakeResult struct{ N float64 }

func (r *fakeResult) HeadlineMetrics() []result.Metric {
	return []result.Metric{{Name: "n", Value: r.N}}
}
func (r *fakeResult) RunStatus() (result.Status, string) { return result.StatusOK, "" }

// fakeMeta is a complete Meta of a workload named name.
func fakeMeta(name string, aliases []string, benchmarks []string, untagged string) Meta {
	return Meta{Name: name, Title: "Fake " + name, Aliases: aliases, Phases: []PhaseMeta{{Phase: Run}},
		New: func() Workload { return &fake{} },
		Result: ResultMeta{Benchmarks: benchmarks, Untagged: untagged, New: func() Result { return &fakeResult{} },
			Headline: []MetricInfo{{Name: "n", Unit: "things", Better: result.HigherIsBetter, What: "things done"}}}}
}

// TestRegistryLookups: a workload is found by its name and its aliases, which Names
// does not list; a result file by its benchmark member, current or old, or without
// one by the member the workload's untagged results have; a name, an alias or a
// benchmark value that another workload has is refused.
func TestRegistryLookups(t *testing.T) {
	Register(fakeMeta("lookup-new", []string{"lookup-old"}, []string{"lookup-new", "lookup-older"}, "lookup_sf"))
	Register(fakeMeta("lookup-other", nil, []string{"lookup-other"}, ""))
	for _, name := range []string{"lookup-new", "lookup-old"} {
		if m, err := Get(name); err != nil || m.Name != "lookup-new" || m.Title != "Fake lookup-new" {
			t.Errorf("Get(%s) = %s, %v; want lookup-new", name, m.Name, err)
		}
	}
	if names := Names(); slices.Contains(names, "lookup-old") || !slices.Contains(names, "lookup-new") {
		t.Errorf("Names() = %v: want the name, not the alias", names)
	}
	if _, err := Get("lookup-none"); err == nil || !strings.Contains(err.Error(), `unknown workload "lookup-none": valid workloads are `) || strings.Contains(err.Error(), "lookup-old") {
		t.Errorf("Get of an unknown name: %v", err)
	}
	members := func(names ...string) func(string) bool {
		return func(m string) bool { return slices.Contains(names, m) }
	}
	for _, tc := range []struct {
		benchmark string
		members   []string
		want      string // "" for none
	}{
		{"lookup-new", nil, "lookup-new"},
		{"lookup-older", nil, "lookup-new"},
		{"lookup-other", []string{"lookup_sf"}, "lookup-other"},
		{"", []string{"status", "lookup_sf"}, "lookup-new"},
		{"", []string{"status"}, ""},
		{"lookup-old", nil, ""}, // an alias is a command's name, not a benchmark value
		{"future", []string{"lookup_sf"}, ""},
	} {
		m, ok := ForResult(tc.benchmark, members(tc.members...))
		if ok != (tc.want != "") || m.Name != tc.want {
			t.Errorf("ForResult(%q, %v) = %q, %v; want %q", tc.benchmark, tc.members, m.Name, ok, tc.want)
		}
	}
	m, _ := Get("lookup-new")
	if mi, ok := m.Metric("n"); !ok || mi.Of(7) != (result.Metric{Name: "n", Value: 7, Unit: "things", Better: result.HigherIsBetter}) {
		t.Errorf("metric n: %+v, %v", mi, ok)
	}
	if _, ok := m.Metric("m"); ok {
		t.Error("a metric the workload does not describe")
	}
	for _, bad := range []Meta{
		fakeMeta("lookup-old", nil, []string{"lookup-old"}, ""),                          // another's alias as a name
		fakeMeta("lookup-third", []string{"lookup-other"}, []string{"lookup-third"}, ""), // another's name as an alias
		fakeMeta("lookup-fourth", nil, []string{"lookup-fourth", "lookup-older"}, ""),    // another's benchmark value
		fakeMeta("lookup-fifth", nil, []string{"lookup-other-name"}, ""),                 // writes another name
		fakeMeta("lookup-sixth", nil, nil, ""),                                           // names no benchmark
		func() Meta {
			m := fakeMeta("lookup-seventh", nil, []string{"lookup-seventh"}, "")
			m.Title = ""
			return m
		}(),
		func() Meta {
			m := fakeMeta("lookup-eighth", nil, []string{"lookup-eighth"}, "")
			m.Result.New = nil
			return m
		}(),
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%s, aliases %v, benchmarks %v, title %q) did not panic", bad.Name, bad.Aliases, bad.Result.Benchmarks, bad.Title)
				}
			}()
			Register(bad)
		}()
	}
	if _, err := Get("lookup-fourth"); err == nil {
		t.Error("a refused workload was registered")
	}
}
