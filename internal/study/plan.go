package study

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"tierbench/internal/result"
)

// writePlan prints what the study runs: its factors, cells x repetitions, order,
// baseline, timeout and shard, and what its directory already holds, with an
// estimate of the time left once runs have finished.
func writePlan(w io.Writer, p *Plan, sh Shard, st *status) {
	s := p.Study
	where := s.File.Path
	if s.Size != "" {
		where += ", size " + s.Size
	}
	fmt.Fprintf(w, "study %s (%s)", s.File.Name, where)
	if s.Description != "" {
		fmt.Fprintf(w, ": %s", s.Description)
	}
	fmt.Fprintln(w)
	item := func(key, format string, args ...any) {
		fmt.Fprintf(w, "  %-10s %s\n", key, fmt.Sprintf(format, args...))
	}
	if s.SizeDescription != "" {
		item("size", "%s: %s", s.Size, s.SizeDescription)
	}
	workloads := map[string]bool{}
	var wl []string
	for _, c := range p.Cells {
		key := fmt.Sprintf("%s (%s)", c.Workload, joinPhases(c))
		if !workloads[key] {
			workloads[key] = true
			wl = append(wl, key)
		}
	}
	item("workload", "%s", strings.Join(wl, "; "))
	for i, f := range p.Factors {
		key := ""
		if i == 0 {
			key = "factors"
		}
		item(key, "%s: %s", f.Name, strings.Join(f.Levels, ", "))
	}
	for _, g := range s.Zip {
		item("zip", "%s vary together", strings.Join(g.Factors, ", "))
	}
	cells := fmt.Sprintf("%d x %d repetitions = %d runs", len(p.Cells), s.Repetitions, len(p.Cells)*s.Repetitions)
	if p.Excluded == 1 {
		cells += " (1 cell excluded)"
	} else if p.Excluded > 0 {
		cells += fmt.Sprintf(" (%d cells excluded)", p.Excluded)
	}
	order := "in a fixed order (repetition 1 of every cell, then 2, ...)"
	if s.Order == OrderShuffled {
		order = fmt.Sprintf("shuffled (seed %d)", s.Seed)
	}
	item("cells", "%s, %s", cells, order)
	if b := s.Baseline; b != nil {
		item("baseline", "%s%s", describe(*b), baselineScope(p, *b))
	}
	if s.Timeout > 0 {
		item("timeout", "%s a run", s.Timeout)
	}
	if t := p.snapshotText(); t != "" {
		item("snapshot", "%s", t)
	}
	for i, c := range p.Claims {
		key := ""
		if i == 0 {
			key = "expect"
		}
		item(key, "%s: %s (the paper: %s)", c.ID, c.Text, c.Paper)
	}
	if sh != All {
		n := 0
		for _, c := range p.Cells {
			if sh.Has(c.Index) {
				n++
			}
		}
		item("shard", "%s: %d of the %d cells (every %d-th from cell %d)", sh, n, len(p.Cells), sh.N, sh.K)
	}
	left := "estimated time: known once a run has finished"
	if d := newEstimator(st.prev).remaining(st.todo); d > 0 {
		left = fmt.Sprintf("estimated time: %s (from the runs finished)", d.Round(time.Second))
	}
	done := fmt.Sprintf("%d of %d runs finished", st.Finished, st.Runs)
	if st.KeptFailed > 0 {
		done += fmt.Sprintf(", %d failed (kept; --retry-failed runs them again)", st.KeptFailed)
	}
	item("out", "%s: %s, %d to run; %s", st.out, done, len(st.todo), left)
	if st.Beyond > 0 {
		item("note", "%s also holds %d runs of repetitions beyond the study's %d (it ran with more): kept, and left out of the report; give repetitions: %d or more to use them",
			st.out, st.Beyond, s.Repetitions, s.Repetitions+1)
	}
	for _, n := range append(append(slices.Clone(s.File.Notes), p.Notes...), st.notes...) {
		item("note", "%s", n)
	}
}

func joinPhases(c Cell) string {
	ps := make([]string, len(c.Phases))
	for i, p := range c.Phases {
		ps[i] = string(p)
	}
	return strings.Join(ps, ", ")
}

// baselineScope says against what each cell is compared when the baseline leaves
// factors free: the baseline cell with the same levels of those.
func baselineScope(p *Plan, b Match) string {
	var free []string
	for _, f := range p.Factors {
		named := false
		for _, t := range b.Terms {
			named = named || t.Factor == f.Name
		}
		if !named && len(f.Levels) > 1 {
			free = append(free, f.Name)
		}
	}
	if len(free) == 0 {
		return ""
	}
	return ", each cell against the one with its " + strings.Join(free, " and ")
}

// estimator estimates how long runs take from those that finished: a cell's own
// runs, or else all of them.
type estimator struct {
	byCell map[string][]float64
	all    []float64
}

func newEstimator(prev map[runKey]*RunRecord) *estimator {
	e := &estimator{byCell: map[string][]float64{}}
	for _, r := range prev {
		e.add(r)
	}
	return e
}

func (e *estimator) add(r *RunRecord) {
	if r.Status == result.StatusInterrupted || r.Seconds <= 0 {
		return
	}
	e.byCell[r.Cell] = append(e.byCell[r.Cell], r.Seconds)
	e.all = append(e.all, r.Seconds)
}

// remaining is the estimated time of runs; 0 when no run has finished.
func (e *estimator) remaining(runs []RunRef) time.Duration {
	if len(e.all) == 0 {
		return 0
	}
	total := 0.0
	for _, r := range runs {
		if xs := e.byCell[r.Cell.ID]; len(xs) > 0 {
			total += mean(xs)
		} else {
			total += mean(e.all)
		}
	}
	return time.Duration(total * float64(time.Second))
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
