package study

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"tierbench/internal/lifecycle"
	"tierbench/internal/params"
	"tierbench/internal/workload"
)

// workloadKey is the name that sets a cell's workload from a factor.
const workloadKey = "workload"

// paramIndex is what a workload's phases take: every parameter by flag name with its
// kind, and which phase has which.
type paramIndex struct {
	workload string
	phases   []workload.Phase
	kinds    map[string]params.Kind
	byPhase  map[workload.Phase]map[string]bool
}

// indexes caches the parameter index of each workload and phases.
type indexes map[string]*paramIndex

// get is the index of workload w's phases (all of them when phases is nil).
func (ix indexes) get(w string, phases []workload.Phase) (*paramIndex, error) {
	m, err := workload.Get(w)
	if err != nil {
		return nil, err
	}
	if len(phases) == 0 {
		for _, pm := range m.Phases {
			phases = append(phases, pm.Phase)
		}
	}
	key := w + " " + fmt.Sprint(phases)
	if pi, ok := ix[key]; ok {
		return pi, nil
	}
	pi := &paramIndex{workload: w, phases: phases, kinds: map[string]params.Kind{}, byPhase: map[workload.Phase]map[string]bool{}}
	for _, ph := range phases {
		if _, ok := m.Phase(ph); !ok {
			var valid []string
			for _, pm := range m.Phases {
				valid = append(valid, string(pm.Phase))
			}
			return nil, fmt.Errorf("%s has no phase %q: its phases are %s", w, ph, strings.Join(valid, ", "))
		}
		own, settings, err := lifecycle.ParamSets(w, ph)
		if err != nil {
			return nil, err
		}
		names := map[string]bool{}
		for _, set := range []*params.Set{own, settings} {
			for _, p := range set.Params() {
				names[p.Name] = true
				if _, ok := pi.kinds[p.Name]; !ok {
					pi.kinds[p.Name] = p.Kind
				}
			}
		}
		pi.byPhase[ph] = names
	}
	ix[key] = pi
	return pi, nil
}

// has reports whether name ("users", or "load.seed" for one phase) is a parameter.
func (pi *paramIndex) has(name string) bool {
	if ph, n, ok := strings.Cut(name, "."); ok {
		return pi.byPhase[workload.Phase(ph)][n]
	}
	_, ok := pi.kinds[name]
	return ok
}

// kind is the parameter's kind ("" when there is none).
func (pi *paramIndex) kind(name string) params.Kind {
	if _, n, ok := strings.Cut(name, "."); ok {
		name = n
	}
	return pi.kinds[name]
}

// unknown is the error for a name that is no parameter, listing the valid ones.
func (pi *paramIndex) unknown(name string) string {
	names := make([]string, 0, len(pi.kinds))
	for n := range pi.kinds {
		if n != "out" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	phases := make([]string, len(pi.phases))
	for i, p := range pi.phases {
		phases[i] = string(p)
	}
	if ph, _, ok := strings.Cut(name, "."); ok && !slices.Contains(pi.phases, workload.Phase(ph)) {
		return fmt.Sprintf("%s runs no phase %q: its phases here are %s", pi.workload, ph, strings.Join(phases, ", "))
	}
	return fmt.Sprintf("%s (%s) has no parameter %q: valid parameters are %s", pi.workload, strings.Join(phases, ", "), name, strings.Join(names, ", "))
}
