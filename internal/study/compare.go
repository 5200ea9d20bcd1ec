package study

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"tierbench/internal/metrics"
	"tierbench/internal/report"
	"tierbench/internal/report/chart"
	"tierbench/internal/report/stats"
)

// Comparison is two studies (or two runs of one) compared cell by cell, metric by
// metric: base and new means, the % difference and whether it is significant.
type Comparison struct {
	// Base and New are the directories compared.
	Base string `json:"base"`
	New  string `json:"new"`
	// Cells are the cells both have, compared.
	Cells []string `json:"cells"`
	// Tables are one per metric both studies have; text says which are printed.
	Tables []*report.Table `json:"-"`
	text   map[string]bool
	Doc    *report.Document `json:"-"`
	// Notes say which cells only one side has, and what the runs' files lacked.
	Notes []string `json:"notes,omitempty"`
}

// Write writes the comparison's report into dir (report.html and its figures), and
// comparison.json, which says what the directory holds.
func (c *Comparison) Write(dir string) error {
	if err := c.Doc.Write(dir); err != nil {
		return err
	}
	return metrics.WriteJSONFile(filepath.Join(dir, ComparisonFile), c)
}

// Compare compares the cells base and next have in common (by cell ID).
func Compare(base, next *Results) (*Comparison, error) {
	bb, nb := &reportBuilder{res: base, rec: base.Record}, &reportBuilder{res: next, rec: next.Record}
	if err := bb.collect(); err != nil {
		return nil, err
	}
	if err := nb.collect(); err != nil {
		return nil, err
	}
	nextCells := map[string]report.Cell{}
	for _, c := range nb.cells {
		nextCells[c.CellID()] = c
	}
	var common []string
	cmp := &Comparison{Base: base.Dirs[0], New: next.Dirs[0], text: map[string]bool{}, Notes: append(slices.Clone(bb.notes), nb.notes...)}
	for _, c := range bb.cells {
		if _, ok := nextCells[c.CellID()]; ok {
			common = append(common, c.CellID())
		} else {
			cmp.Notes = append(cmp.Notes, fmt.Sprintf("cell %s is only in %s", c.CellID(), base.Dirs[0]))
		}
	}
	for _, c := range nb.cells {
		if !slices.Contains(common, c.CellID()) {
			cmp.Notes = append(cmp.Notes, fmt.Sprintf("cell %s is only in %s", c.CellID(), next.Dirs[0]))
		}
	}
	cmp.Cells = common
	if len(common) == 0 {
		return nil, fmt.Errorf("%s and %s have no cell in common (cells are named by their factors' levels): compare runs of one study, or of studies with the same factors",
			base.Dirs[0], next.Dirs[0])
	}
	baseCells := map[string]report.Cell{}
	for _, c := range bb.cells {
		baseCells[c.CellID()] = c
	}
	doc := report.New(fmt.Sprintf("Comparison: %s vs %s", base.Dirs[0], next.Dirs[0]))
	doc.Subtitle = fmt.Sprintf("base: study %s in %s; new: study %s in %s", base.Record.Name, base.Dirs[0], next.Record.Name, next.Dirs[0])
	items := []report.Item{{Key: "Base", Value: base.Dirs[0]}, {Key: "New", Value: next.Dirs[0]},
		{Key: "Cells compared", Value: fmt.Sprintf("%d", len(common))}}
	for _, n := range cmp.Notes {
		items = append(items, report.Item{Key: "Note", Value: n})
	}
	doc.Section("Plan").AddPlan(report.Plan{
		Description: "Each metric's mean over the repetitions of each cell both studies ran; the % difference of new against base; Welch's t-test, significant when p < 0.05.",
		Items:       items})
	sec := doc.Section("Metrics")
	for _, d := range bb.defs {
		if !slices.ContainsFunc(nb.defs, func(x metricDef) bool { return x.Key == d.Key }) {
			continue
		}
		t, c := compareMetric(d.Metric, common, baseCells, nextCells)
		cmp.Tables = append(cmp.Tables, t)
		cmp.text[t.Name] = d.group != groupDevices && d.group != groupParts
		sub := sec.Section(d.Label).AddTable(t)
		if c != nil {
			sub.AddChart(c)
		}
	}
	cmp.Doc = doc
	return cmp, nil
}

// compareMetric is the table and the chart of one metric over the common cells.
func compareMetric(m report.Metric, cells []string, base, next map[string]report.Cell) (*report.Table, *chart.Chart) {
	name := m.Key
	if chart.CheckName(name) != nil {
		name = chart.Slug(name)
	}
	t := report.NewTable(name, m.Label, report.Column{Label: "cell"},
		report.Column{Label: "base n"}, report.Column{Label: "base mean", Unit: m.Unit},
		report.Column{Label: "new n"}, report.Column{Label: "new mean", Unit: m.Unit},
		report.Column{Label: "difference", Unit: "%"}, report.Column{Label: "p (Welch)"}, report.Column{Label: "significant"})
	rng := m.Range
	c := chart.NewBars(name+"-base-vs-new", m.Label+": base vs new", cells, chart.Axis{Label: "cell"}, chart.Axis{Label: m.Label, Unit: m.Unit, Range: &rng}, false)
	var bp, np []chart.Point
	for i, id := range cells {
		bv, nv := base[id].Values(m.Key), next[id].Values(m.Key)
		bs, ns := stats.Summarise(bv, m.Range), stats.Summarise(nv, m.Range)
		row := []report.Entry{report.Text(id), count(bs.N), report.Number(bs.Mean), count(ns.N), report.Number(ns.Mean)}
		if bs.N > 0 && ns.N > 0 {
			cm := stats.Compare(bv, nv)
			diff, sig := report.Percent(cm.DiffPct), report.Text("no")
			switch {
			case math.IsNaN(cm.P):
				sig = report.Text("untestable")
			case cm.Significant:
				sig = report.Text("yes")
				diff.Class = report.ClassWorse
				if cm.DiffPct > 0 != m.LowerIsBetter {
					diff.Class = report.ClassBetter
				}
			}
			row = append(row, diff, report.PValue(cm.P), sig)
		} else {
			row = append(row, report.Text(report.Missing), report.Text(report.Missing), report.Text(report.Missing))
		}
		t.AddRow(row...)
		bp, np = appendMean(bp, i, bs), appendMean(np, i, ns)
	}
	t.Note = "n: successful repetitions. difference: of the new mean against the base mean; p: Welch's t-test, two-sided; significant when p < 0.05."
	if len(bp) == 0 && len(np) == 0 {
		return t, nil
	}
	c.Add("base", bp...).Add("new", np...)
	c.Note = fmt.Sprintf("Bars are the means over repetitions; error bars, their 95%% confidence intervals (%s) where there are two repetitions or more.", stats.MethodFor(m.Range).Describe())
	return t, c
}

func count(n int) report.Entry { return report.NumberAs(float64(n), fmt.Sprint(n)) }

func appendMean(pts []chart.Point, i int, s stats.Summary) []chart.Point {
	switch {
	case s.N == 0:
		return pts
	case s.N >= 2:
		return append(pts, chart.XYCI(float64(i), s.Mean, s.CILow, s.CIHigh))
	}
	return append(pts, chart.XY(float64(i), s.Mean))
}

// WriteText prints the tables of the headline, latency and energy metrics, aligned.
func (c *Comparison) WriteText(w io.Writer) {
	for _, t := range c.Tables {
		if !c.text[t.Name] {
			continue
		}
		fmt.Fprintf(w, "%s\n", t.Title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := make([]string, len(t.Columns))
		for i, col := range t.Columns {
			head[i] = col.Heading()
		}
		fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
		for _, r := range t.Rows {
			cells := make([]string, len(r))
			for i, e := range r {
				cells[i] = e.Text
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	for _, n := range c.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
