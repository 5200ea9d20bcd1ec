package workload

import (
	"context"
	"strings"
	"testing"

	"tierbench/internal/params"
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
