package report

import (
	"fmt"

	"tierbench/internal/report/stats"
)

// SummariseAgainst is Summarise with a baseline per cell: against maps a cell's ID
// to the ID of the cell it is compared with (its own ID for a baseline; a cell
// absent from it is compared with none). A study whose baseline names only some
// factors ({placement: I} of placement x engine) compares each cell with the
// baseline of the same levels of the others (placement I of the same engine). what
// says what the baselines are, for the tables' notes and Summary.Baseline.
func SummariseAgainst(cells []Cell, ms []Metric, against map[string]string, what string) (*Summary, error) {
	s, err := Summarise(cells, ms, "")
	if err != nil {
		return nil, err
	}
	byID := map[string]*Cell{}
	for i := range cells {
		byID[cells[i].CellID()] = &cells[i]
	}
	for id, b := range against {
		if byID[id] == nil || byID[b] == nil {
			return nil, fmt.Errorf("summary: cell %q is compared with %q: both must be cells", id, b)
		}
	}
	if len(against) > 0 {
		s.Baseline = what
	}
	for i := range s.Cells {
		cs := &s.Cells[i]
		b, ok := against[cs.ID]
		if !ok {
			continue
		}
		cs.Against = b
		if b == cs.ID {
			continue
		}
		for _, m := range ms {
			sum := cs.Metrics[m.Key]
			cmp := stats.Compare(byID[b].Values(m.Key), sum.Values)
			sum.VsBaseline = &cmp
			cs.Metrics[m.Key] = sum
		}
	}
	return s, nil
}
