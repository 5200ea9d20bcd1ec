package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"tierbench/internal/report/chart"
	"tierbench/internal/report/stats"
)

// Table is the table of one metric, named by its key: a row per cell with its varying factors, the
// number of successful repetitions, mean, SD, min, max, the 95% CI, and the %
// difference against the baseline with Welch's p and whether it is significant.
func (s *Summary) Table(key string) (*Table, error) {
	m, ok := s.Metric(key)
	if !ok {
		return nil, fmt.Errorf("summary: no metric %q", key)
	}
	factors := s.Varying()
	var cols []Column
	for _, f := range factors {
		cols = append(cols, Column{Label: f})
	}
	if len(factors) == 0 {
		cols = append(cols, Column{Label: "cell"})
	}
	cols = append(cols, Column{Label: "n"},
		Column{Label: "mean", Unit: m.Unit}, Column{Label: "SD", Unit: m.Unit},
		Column{Label: "min", Unit: m.Unit}, Column{Label: "max", Unit: m.Unit},
		Column{Label: "95% CI low", Unit: m.Unit}, Column{Label: "95% CI high", Unit: m.Unit})
	if s.Baseline != "" {
		cols = append(cols, Column{Label: "vs baseline", Unit: "%"}, Column{Label: "p (Welch)"}, Column{Label: "significant"})
	}
	name := key // a metric key is usually a valid name already: keep it
	if chart.CheckName(name) != nil {
		name = chart.Slug(key)
	}
	t := NewTable(name, m.Label, cols...)
	failed := 0
	for _, c := range s.Cells {
		failed += c.Failed
		var row []Entry
		for _, f := range factors {
			row = append(row, Text(factorOf(c.Factors, f)))
		}
		if len(factors) == 0 {
			row = append(row, Text(c.ID))
		}
		ms := c.Metrics[key]
		st := ms.Stats
		n := NumberAs(float64(st.N), strconv.Itoa(st.N))
		if c.Failed > 0 {
			n.Text += fmt.Sprintf(" (%d failed)", c.Failed)
		}
		row = append(row, n, Number(st.Mean), Number(st.SD), Number(st.Min), Number(st.Max), Number(st.CILow), Number(st.CIHigh))
		if s.Baseline != "" {
			row = append(row, comparisonEntries(m, c.ID == s.Baseline || c.Against == c.ID, ms.VsBaseline)...)
		}
		t.AddRow(row...)
	}
	notes := []string{"n: successful repetitions. 95% CI: " + intervalNote(m, s.Cells) + "; none for one repetition."}
	if s.Baseline != "" {
		notes = append(notes, fmt.Sprintf("vs baseline: %% difference of the means against %s; p: Welch's t-test, two-sided; significant when p < %g.", s.Baseline, stats.Alpha))
	}
	if failed > 0 {
		notes = append(notes, fmt.Sprintf("Failed repetitions (%d) are left out.", failed))
	}
	t.Note = strings.Join(notes, " ")
	return t, nil
}

// intervalNote says how the metric's intervals were made: the method its range
// calls for, and the cells whose values lie outside the range.
func intervalNote(m Metric, cells []CellSummary) string {
	var clipped []string
	for _, c := range cells {
		if c.Metrics[m.Key].Stats.Method == stats.ClippedT {
			clipped = append(clipped, c.ID)
		}
	}
	note := "Student's t with n-1 degrees of freedom"
	if sc := stats.MethodFor(m.Range).Scale(); sc != "" {
		note += fmt.Sprintf(" %s, which keeps it within the range of %s (%s)", sc, m.Label, m.Range)
	}
	if len(clipped) > 0 {
		note += fmt.Sprintf("; %s have values outside that range: theirs is Student's t cut at its bounds", strings.Join(clipped, ", "))
	}
	return note
}

func comparisonEntries(m Metric, isBase bool, cmp *stats.Comparison) []Entry {
	if isBase {
		b := Text("baseline")
		b.Class = ClassBaseline
		return []Entry{b, Text(Missing), Text(Missing)}
	}
	if cmp == nil {
		return []Entry{Text(Missing), Text(Missing), Text(Missing)}
	}
	diff := Percent(cmp.DiffPct)
	sig := Text("no")
	switch {
	case math.IsNaN(cmp.P):
		sig = Text("untestable")
	case cmp.Significant:
		sig = Text("yes")
		better := cmp.DiffPct > 0 != m.LowerIsBetter
		diff.Class = ClassWorse
		if better {
			diff.Class = ClassBetter
		}
	}
	return []Entry{diff, PValue(cmp.P), sig}
}

// ChartSpec says how to chart one metric of a summary.
type ChartSpec struct {
	// Metric is the metric's key.
	Metric string
	// X is the factor along x. The other varying factors make the series: one line
	// (or one bar in each group) per combination of their values.
	X string
	// With are the factors zipped to X: their levels move with X's, so they share
	// its axis (each tick or category says both levels) and make no series.
	With []string
	// Name and Title default to "METRIC-vs-X" and "LABEL vs X".
	Name, Title string
	// XLabel and XUnit label the x axis (default: the factor's name).
	XLabel, XUnit string
	XLog          bool
	// XValue reads a factor value as a number (default strconv.ParseFloat); if any
	// value does not read, x is categorical.
	XValue func(string) (float64, error)
	// Kind is chart.Line over a numeric x and chart.Bar otherwise, unless set.
	Kind chart.Kind
}

// Chart charts one metric over the factor spec.X: each cell's mean, with its 95% CI
// as an error bar when it has two repetitions or more, on an axis that keeps to the
// metric's range. A cell without a value (all its runs failed) has no point. An x
// whose values are whole numbers (users, streams) has whole-number ticks.
func (s *Summary) Chart(spec ChartSpec) (*chart.Chart, error) {
	m, ok := s.Metric(spec.Metric)
	if !ok {
		return nil, fmt.Errorf("summary: no metric %q", spec.Metric)
	}
	for _, f := range append([]string{spec.X}, spec.With...) {
		if !slices.Contains(s.Factors, f) {
			return nil, fmt.Errorf("summary: no factor %q to chart %s over; factors are %q", f, spec.Metric, s.Factors)
		}
	}
	xValue := spec.XValue
	if xValue == nil {
		xValue = func(v string) (float64, error) { return strconv.ParseFloat(v, 64) }
	}
	// along is what a cell shows along x: its level of X, and of the factors zipped
	// to it.
	along := func(fs []Factor) string {
		parts := []string{factorOf(fs, spec.X)}
		for _, w := range spec.With {
			parts = append(parts, factorOf(fs, w))
		}
		return strings.Join(parts, " / ")
	}
	var xs []string // the factor's values in the cells' order
	labels := map[string]string{}
	numeric, integer := true, true
	xnum := map[string]float64{}
	for _, c := range s.Cells {
		v := factorOf(c.Factors, spec.X)
		if !slices.Contains(xs, v) {
			xs = append(xs, v)
			labels[v] = along(c.Factors)
			f, err := xValue(v)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				numeric = false
			}
			integer = integer && f == math.Trunc(f)
			xnum[v] = f
		}
	}
	kind := spec.Kind
	if kind == "" {
		kind = chart.Line
		if !numeric {
			kind = chart.Bar
		}
	}
	if kind == chart.Line && !numeric {
		return nil, fmt.Errorf("summary: a line chart of %s needs a numeric %s; its values are %q", spec.Metric, spec.X, xs)
	}
	name, title := spec.Name, spec.Title
	if name == "" {
		name = chart.Slug(spec.Metric + "-vs-" + spec.X)
	}
	if title == "" {
		title = m.Label + " vs " + strings.Join(append([]string{spec.X}, spec.With...), " and ")
	}
	xl := spec.XLabel
	if xl == "" {
		xl = spec.X
	}
	xAxis := chart.Axis{Label: xl, Unit: spec.XUnit, Log: spec.XLog, Integer: numeric && integer}
	if len(spec.With) > 0 {
		xAxis.Label += " / " + strings.Join(spec.With, " / ")
	}
	yRange := m.Range
	c := chart.New(kind, name, title, xAxis, chart.Axis{Label: m.Label, Unit: m.Unit, Range: &yRange})
	if kind == chart.Bar || kind == chart.StackedBar {
		for _, v := range xs {
			c.Categories = append(c.Categories, labels[v])
		}
	} else if len(spec.With) > 0 {
		for _, v := range xs {
			c.X.Ticks = append(c.X.Ticks, chart.Tick{Value: xnum[v], Label: labels[v]})
		}
		slices.SortFunc(c.X.Ticks, func(a, b chart.Tick) int { return cmp.Compare(a.Value, b.Value) })
	}
	var others []string
	for _, f := range s.Varying() {
		if f != spec.X && !slices.Contains(spec.With, f) {
			others = append(others, f)
		}
	}
	index := map[string]int{}
	var method stats.Method
	for _, cs := range s.Cells {
		parts := make([]string, len(others))
		for i, f := range others {
			parts[i] = f + "=" + factorOf(cs.Factors, f)
		}
		key := strings.Join(parts, ", ")
		if key == "" {
			key = m.Label
		}
		si, ok := index[key]
		if !ok {
			si = len(c.Series)
			index[key] = si
			c.Add(key)
		}
		st := cs.Metrics[spec.Metric].Stats
		if st.N == 0 {
			continue
		}
		xv := factorOf(cs.Factors, spec.X)
		x := xnum[xv]
		if c.Categories != nil {
			x = float64(slices.Index(xs, xv))
		}
		p := chart.XY(x, st.Mean)
		if st.N >= 2 {
			p = chart.XYCI(x, st.Mean, st.CILow, st.CIHigh)
			if method == "" || st.Method != stats.ClippedT {
				method = st.Method
			}
		}
		c.Series[si].Points = append(c.Series[si].Points, p)
	}
	// A configuration none of whose cells has the metric (TPC-H's cells in a chart of
	// TPS) is no series: it would take a legend entry and a gap in every group.
	c.Series = slices.DeleteFunc(c.Series, func(sr chart.Series) bool { return len(sr.Points) == 0 })
	for _, sr := range c.Series {
		slices.SortFunc(sr.Points, func(a, b chart.Point) int { return cmp.Compare(a.X, b.X) })
	}
	if method != "" {
		what := "Points"
		if c.Categories != nil {
			what = "Bars"
		}
		c.Note = fmt.Sprintf("%s are the means over repetitions; error bars, their 95%% confidence intervals (%s).", what, method.Describe())
	}
	if len(spec.With) > 0 {
		where := "tick"
		if c.Categories != nil {
			where = "group"
		}
		c.Note = strings.TrimSpace(fmt.Sprintf("%s and %s vary together (zip): each %s is a level of both. %s",
			spec.X, strings.Join(spec.With, " and "), where, c.Note))
	}
	return c, c.Validate()
}
