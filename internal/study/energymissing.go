package study

import (
	"fmt"
	"slices"
	"strings"

	"tierbench/internal/energy"
)

// energyMissing gathers what the runs' energy totals leave out of the whole system
// (each run window's Missing), so that the report says it beside the figures instead
// of calling DRAM plus storage the whole system's energy.
type energyMissing struct {
	runs    int // runs with an energy section
	parts   []missingPart
	missing int // runs whose total leaves something out
}

// missingPart is one part left out, for one reason, and the cells whose runs left it out.
type missingPart struct {
	energy.Unavailable
	cells []string
	runs  int
}

// add notes one run of cell and what its total leaves out.
func (m *energyMissing) add(cell string, missing []energy.Unavailable) {
	m.runs++
	if len(missing) > 0 {
		m.missing++
	}
	for _, u := range missing {
		i := 0
		for i < len(m.parts) && m.parts[i].Unavailable != u {
			i++
		}
		if i == len(m.parts) {
			m.parts = append(m.parts, missingPart{Unavailable: u})
		}
		p := &m.parts[i]
		p.runs++
		if n := len(p.cells); n == 0 || p.cells[n-1] != cell {
			p.cells = append(p.cells, cell)
		}
	}
}

// label is a whole-system metric's label: "energy of the run (whole system)" when no
// run's total leaves anything out, else what the totals leave out: "energy of the run
// (without base; without cpu in some runs)".
func (m *energyMissing) label(what string) string {
	if m.missing == 0 {
		return what + " (whole system)"
	}
	var every, some []string
	for _, p := range m.parts {
		if p.runs == m.runs && !slices.Contains(every, p.What) {
			every = append(every, p.What)
		}
	}
	for _, p := range m.parts {
		if !slices.Contains(every, p.What) && !slices.Contains(some, p.What) {
			some = append(some, p.What)
		}
	}
	var parts []string
	if len(every) > 0 {
		parts = append(parts, "without "+strings.Join(every, ", "))
	}
	if len(some) > 0 {
		parts = append(parts, "without "+strings.Join(some, ", ")+" in some runs")
	}
	return fmt.Sprintf("%s (%s)", what, strings.Join(parts, "; "))
}

// text says which parts each total leaves out, in which cells, and why; "" when none.
func (m *energyMissing) text() string {
	if m.missing == 0 {
		return ""
	}
	var parts []string
	for _, p := range m.parts {
		where := "in every run"
		if p.runs < m.runs {
			where = "in cells " + strings.Join(p.cells, ", ")
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s)", p.What, where, p.Why))
	}
	return "The totals are not the whole system's: they leave out " + strings.Join(parts, "; ") + "."
}
