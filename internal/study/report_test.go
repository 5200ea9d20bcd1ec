package study

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"tierbench/internal/report"
	"tierbench/internal/report/chart"
	"tierbench/internal/result"
)

// zippedResults is a TPC-C study of engine x (users zipped with buffer): users 1, 4
// and 16 with buffers 8MB, 64MB and 1GB, two repetitions each, with baseline
// {users: 1}. Each run's NOPM is 100 x users + 10 x repetition (postgres twice that),
// and its TPS 150 or 200.
func zippedResults() *Results {
	rec := &Record{Name: "zipped", Repetitions: 2,
		Factors: []FactorInfo{{Name: "engine", Levels: []string{"sqlite", "postgres"}, Axis: AxisCategory},
			{Name: "users", Levels: []string{"1", "4", "16"}, Axis: AxisNumber},
			{Name: "buffer", Levels: []string{"8MB", "64MB", "1GB"}, Axis: AxisSize}},
		Zip:      [][]string{{"users", "buffer"}},
		Baseline: []Term{{Factor: "users", Levels: []string{"1"}}}}
	res := &Results{Record: rec, Runs: map[runKey]*RunRecord{}}
	for e, eng := range rec.Factors[0].Levels {
		for i, u := range rec.Factors[1].Levels {
			fs := []report.Factor{{Name: "engine", Value: eng}, {Name: "users", Value: u}, {Name: "buffer", Value: rec.Factors[2].Levels[i]}}
			c := Cell{Index: len(rec.Cells), ID: cellID(fs), Factors: fs, Workload: "tpcc"}
			rec.Cells = append(rec.Cells, c)
			users := []float64{1, 4, 16}[i]
			for rep := 1; rep <= 2; rep++ {
				nopm := float64(e+1) * (100*users + 10*float64(rep))
				res.Runs[runKey{c.ID, rep}] = &RunRecord{Cell: c.ID, Repetition: rep, Status: result.StatusOK, Dir: fmt.Sprintf("cells/%s/rep-%d", c.ID, rep),
					Metrics: []result.Metric{{Name: "nopm", Value: nopm, Unit: "new orders/min", Better: result.HigherIsBetter},
						{Name: "tps", Value: []float64{150, 200}[rep-1], Unit: "transactions/s", Better: result.HigherIsBetter}}}
			}
		}
	}
	return res
}

func reportChart(t *testing.T, doc *report.Document, name string) *chart.Chart {
	t.Helper()
	for _, c := range doc.Charts() {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("the report has no chart %s", name)
	return nil
}

// TestReportZippedFactors: with users zipped to buffer, "NOPM vs users" draws one line
// per engine through the three levels, each tick naming both levels, rather than one
// lone point per (engine, buffer); each cell is compared with the baseline users=1 of
// its engine, whose buffer is the one zipped to users 1.
func TestReportZippedFactors(t *testing.T) {
	rep, err := BuildReport(zippedResults())
	if err != nil {
		t.Fatal(err)
	}
	c := reportChart(t, rep.Doc, "nopm-vs-users")
	var names []string
	for _, s := range c.Series {
		names = append(names, fmt.Sprintf("%s:%d", s.Name, len(s.Points)))
	}
	if !slices.Equal(names, []string{"engine=sqlite:3", "engine=postgres:3"}) {
		t.Errorf("series %q, want engine=sqlite and engine=postgres of 3 points each", names)
	}
	var ticks []string
	for _, tk := range c.X.Ticks {
		ticks = append(ticks, tk.Label)
	}
	if !slices.Equal(ticks, []string{"1 / 8MB", "4 / 64MB", "16 / 1GB"}) || c.X.Label != "users / buffer" || !c.X.Integer {
		t.Errorf("x axis %+v: want ticks 1 / 8MB, 4 / 64MB, 16 / 1GB of users / buffer, at whole numbers", c.X)
	}
	// Means of 100 x users + 10 and + 20: 115, 415, 1615 on sqlite.
	if p := c.Series[0].Points; p[0].Y != 115 || p[1].Y != 415 || p[2].Y != 1615 || p[2].X != 16 {
		t.Errorf("sqlite's NOPM %+v, want 115, 415 and 1615 at users 1, 4, 16", p)
	}
	for _, cs := range rep.Summary.Cells {
		want := "engine=" + cs.Factors[0].Value + ",users=1,buffer=8MB"
		if cs.Against != want {
			t.Errorf("cell %s is compared with %q, want %q", cs.ID, cs.Against, want)
		}
	}
	if rep.Summary.Baseline != "users=1 buffer=8MB with the same engine" {
		t.Errorf("the baseline is said as %q", rep.Summary.Baseline)
	}
	if len(rep.Findings()) != 8 { // 2 metrics x 2 engines x 2 cells against users=1
		t.Errorf("findings %q, want 8", rep.Findings())
	}
}

// TestReportTitlesAndRanges: headline metrics are titled as their workload's registry
// writes them (NOPM, TPS), and with two repetitions of TPS 150 and 200 the interval
// stays above 0 (Student's t reaches -142.7): the table and the chart say how.
func TestReportTitlesAndRanges(t *testing.T) {
	rep, err := BuildReport(zippedResults())
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{}
	for _, m := range rep.Summary.Metrics {
		labels[m.Key] = m.Label
	}
	if labels["nopm"] != "NOPM" || labels["tps"] != "TPS" {
		t.Errorf("labels %v, want NOPM and TPS", labels)
	}
	for _, m := range rep.Summary.Metrics {
		if !m.Range.Bounded() {
			t.Errorf("metric %s (%s) has no range", m.Key, m.Unit)
		}
	}
	for _, tb := range rep.Doc.Tables() {
		if tb.Name != "tps" {
			continue
		}
		if tb.Title != "TPS" || !strings.Contains(tb.Note, "log scale") {
			t.Errorf("table tps: title %q, note %q", tb.Title, tb.Note)
		}
		for _, cs := range rep.Summary.Cells {
			if st := cs.Metrics["tps"].Stats; !(st.CILow > 0) {
				t.Errorf("cell %s: TPS interval from %v", cs.ID, st.CILow)
			}
		}
	}
	c := reportChart(t, rep.Doc, "tps-vs-users")
	if c.Title != "TPS vs users and buffer" || !strings.Contains(c.Note, "log scale") {
		t.Errorf("chart %s: title %q, note %q", c.Name, c.Title, c.Note)
	}
	if _, err := c.SVG(chart.DefaultSize); err != nil {
		t.Error(err)
	}
}
