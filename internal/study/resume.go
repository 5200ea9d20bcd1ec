package study

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"tierbench/internal/result"
)

// maxNamed bounds how many cells one error names.
const maxNamed = 3

// MismatchError is a study file that no longer matches runs that finished in its
// directory: resuming would mix two studies in one report.
type MismatchError struct {
	Out, File string
	// Cells describe each cell whose finished runs no longer match, with what
	// changed.
	Cells []string
	// Runs counts the finished runs at stake.
	Runs int
}

func (e *MismatchError) Error() string {
	named := e.Cells
	more := ""
	if len(named) > maxNamed {
		named, more = named[:maxNamed], fmt.Sprintf(" and %d more cells", len(e.Cells)-maxNamed)
	}
	return fmt.Sprintf("%s holds %d finished runs that %s no longer matches: %s%s: restore the study file (or its --size), or give another --out",
		e.Out, e.Runs, e.File, strings.Join(named, "; "), more)
}

// checkResume refuses a plan that no longer matches the runs finished in out
// (prev): every run that finished ok must be a run of a cell of the plan with the
// same fingerprint. The study may grow (new cells, more repetitions); failed runs of
// a cell that changed are run again.
func (p *Plan) checkResume(out string, rec *Record, prev map[runKey]*RunRecord) error {
	e := &MismatchError{Out: out, File: p.Study.File.Path}
	why := map[string]string{}
	for _, k := range slices.SortedFunc(maps.Keys(prev), func(a, b runKey) int { return cmp.Or(strings.Compare(a.cell, b.cell), cmp.Compare(a.rep, b.rep)) }) {
		r := prev[k]
		if r.Status != result.StatusOK {
			continue
		}
		c := p.Cell(r.Cell)
		switch {
		case c == nil:
			why[r.Cell] = "no longer in the study"
		case c.Fingerprint != r.Fingerprint:
			why[r.Cell] = changes(rec, r.Cell, c)
		default:
			continue
		}
		e.Runs++
	}
	if e.Runs == 0 {
		return nil
	}
	for _, id := range slices.Sorted(maps.Keys(why)) {
		e.Cells = append(e.Cells, fmt.Sprintf("cell %s (%s)", id, why[id]))
	}
	if rec != nil && rec.Size != p.Study.Size {
		e.File += fmt.Sprintf(" at %s", sizeName(p.Study.Size))
		e.Cells[0] = fmt.Sprintf("they ran at %s; %s", sizeName(rec.Size), e.Cells[0])
	}
	return e
}

func sizeName(s string) string {
	if s == "" {
		return "the file's own size"
	}
	return "--size " + s
}

// changes says what changed in cell id between the recorded study and now.
func changes(rec *Record, id string, now *Cell) string {
	if rec == nil {
		return "its parameters changed"
	}
	was := rec.Cell(id)
	if was == nil {
		return "its parameters changed"
	}
	if was.Workload != now.Workload {
		return fmt.Sprintf("workload was %s, now %s", was.Workload, now.Workload)
	}
	if !slices.Equal(was.Phases, now.Phases) {
		return fmt.Sprintf("phases were %v, now %v", was.Phases, now.Phases)
	}
	keys := slices.Sorted(maps.Keys(was.Values))
	for _, k := range slices.Sorted(maps.Keys(now.Values)) {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		a, hadA := was.Values[k]
		b, hasB := now.Values[k]
		switch {
		case !hadA:
			return fmt.Sprintf("--%s %s is new", k, strings.Join(b, ","))
		case !hasB:
			return fmt.Sprintf("--%s %s is gone", k, strings.Join(a, ","))
		case !slices.Equal(a, b):
			return fmt.Sprintf("--%s was %s, now %s", k, strings.Join(a, ","), strings.Join(b, ","))
		}
	}
	return "its parameters changed"
}
