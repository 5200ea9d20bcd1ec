package study

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"tierbench/internal/report"
	"tierbench/internal/report/chart"
	"tierbench/internal/report/reporttest"
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

// TestReportZippedFactors: with users zipped to buffer, "NOPM vs users" draws one line
// per engine through the three levels, each tick naming both levels, rather than one
// lone point per (engine, buffer); each cell is compared with the baseline users=1 of
// its engine, whose buffer is the one zipped to users 1.
func TestReportZippedFactors(t *testing.T) {
	rep, err := BuildReport(zippedResults())
	if err != nil {
		t.Fatal(err)
	}
	c := reporttest.ChartNamed(t, rep.Doc.Charts(), "nopm-vs-users")
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
	c := reporttest.ChartNamed(t, rep.Doc.Charts(), "tps-vs-users")
	if c.Title != "TPS vs users and buffer" || !strings.Contains(c.Note, "log scale") {
		t.Errorf("chart %s: title %q, note %q", c.Name, c.Title, c.Note)
	}
	if _, err := c.SVG(chart.DefaultSize); err != nil {
		t.Error(err)
	}
}

// TestCostAgainstPerformance: the cost-against-performance figure has one point per
// priced cell at its mean TPS and mean cost per million transactions, with the cost's
// interval from the cell's own statistics. By hand: gp3's runs at 1,000 and 1,200 TPS
// costing $0.0020 and $0.0018 give (1100, 0.0019); io2's at 2,000 and 2,200 costing
// $0.0030 and $0.0029 give (2100, 0.00295); pd-ssd has no price, so no point, and the
// note names it.
func TestCostAgainstPerformance(t *testing.T) {
	run := func(rep int, tps, usd float64) report.Run {
		m := map[string]float64{"tps": tps}
		if usd > 0 {
			m["usd_per_million_transactions"] = usd
		}
		return report.Run{Repetition: rep, Metrics: m}
	}
	cell := func(vol string, runs ...report.Run) report.Cell {
		return report.Cell{ID: "volume=" + vol, Factors: []report.Factor{{Name: "volume", Value: vol}}, Runs: runs}
	}
	cells := []report.Cell{
		cell("gp3", run(1, 1000, 0.0020), run(2, 1200, 0.0018)),
		cell("io2", run(1, 2000, 0.0030), run(2, 2200, 0.0029)),
		cell("pd-ssd", run(1, 1500, 0), run(2, 1500, 0)),
	}
	ms := []report.Metric{newMetric("tps", "TPS", "transactions/s", false),
		newMetric("usd_per_million_transactions", "cost per million transactions", "USD", true)}
	sum, err := report.Summarise(cells, ms, "")
	if err != nil {
		t.Fatal(err)
	}
	b := &reportBuilder{sum: sum}
	cs := b.costCharts()
	if len(cs) != 1 || cs[0].Name != "cost-vs-tps" || cs[0].Kind != chart.Line {
		t.Fatalf("charts %+v, want one line chart cost-vs-tps", cs)
	}
	c := cs[0]
	want := map[string][2]float64{"gp3": {1100, 0.0019}, "io2": {2100, 0.00295}}
	if len(c.Series) != len(want) {
		t.Fatalf("series %+v, want gp3 and io2", c.Series)
	}
	for i, s := range c.Series {
		w, ok := want[s.Name]
		if !ok || len(s.Points) != 1 {
			t.Fatalf("series %q: %+v, want one point of gp3 or io2", s.Name, s.Points)
		}
		p, st := s.Points[0], sum.Cells[i].Metrics["usd_per_million_transactions"].Stats
		if math.Abs(p.X-w[0]) > 1e-9 || math.Abs(p.Y-w[1]) > 1e-12 {
			t.Errorf("%s at (%v, %v), want (%v, %v)", s.Name, p.X, p.Y, w[0], w[1])
		}
		if !p.HasCI() || *p.Low != st.CILow || *p.High != st.CIHigh || !(*p.Low < p.Y && p.Y < *p.High) {
			t.Errorf("%s error bar %v..%v, want the cell's interval %v..%v", s.Name, p.Low, p.High, st.CILow, st.CIHigh)
		}
	}
	if !strings.Contains(c.Note, "Left out, without a cost: pd-ssd.") || c.X.Unit != "transactions/s" || c.Y.Unit != "USD" {
		t.Errorf("note %q, axes %+v %+v", c.Note, c.X, c.Y)
	}
	if _, err := c.SVG(chart.DefaultSize); err != nil {
		t.Error(err)
	}
}

// TestReportGoalPer: the report's Goal section ranks each engine's cells apart. By
// hand from zippedResults, the mean NOPM over the two repetitions is 100 x users + 15
// (postgres twice that): sqlite's users=16 cell wins with 1,615 against users=4's 415,
// (1615 - 415) / 415 = 289.2% higher; postgres's with 3,230 against 830.
func TestReportGoalPer(t *testing.T) {
	res := zippedResults()
	res.Record.Goal = &Goal{Metric: "nopm", Per: []string{"engine"}}
	rep, err := BuildReport(res)
	if err != nil {
		t.Fatal(err)
	}
	html, err := rep.Doc.HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Goal: the highest nopm, among the cells with engine=sqlite. engine=sqlite,users=16,buffer=1GB wins with 1615, 289.2% higher than the runner-up engine=sqlite,users=4,buffer=64MB (415).",
		"Goal: the highest nopm, among the cells with engine=postgres. engine=postgres,users=16,buffer=1GB wins with 3230, 289.2% higher than the runner-up engine=postgres,users=4,buffer=64MB (830).",
		"3. engine=postgres,users=1,buffer=8MB: nopm 230",
	} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the report does not say %q", want)
		}
	}
}
