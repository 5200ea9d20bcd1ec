package report

import (
	"math"
	"strings"
	"testing"

	"tierbench/internal/report/chart"
	"tierbench/internal/report/quantity"
	"tierbench/internal/report/stats"
)

// twoRuns is a cell of two repetitions of each metric's values.
func twoRuns(factors []Factor, a, b map[string]float64) Cell {
	return Cell{Factors: factors, Runs: []Run{{Repetition: 1, Metrics: a}, {Repetition: 2, Metrics: b}}}
}

// TestIntervalsKeepToRange: with two repetitions Student's t reaches below 0 for TPS
// and MB/s and past 100% for a CPU's busy share; the summary's intervals stay within
// each metric's range (as worked out by hand in package stats' tests), the table says
// how, and the charts' error bars and axes stay within it too.
func TestIntervalsKeepToRange(t *testing.T) {
	ms := []Metric{
		{Key: "tps", Label: "TPS", Unit: "tx/s"},
		{Key: "mb_s", Label: "MB/s", Unit: "MB/s"},
		{Key: "busy", Label: "host CPU busy", Unit: "%"},
		{Key: "score", Label: "score"}, // no unit: any value, Student's t as it is
	}
	cells := []Cell{
		twoRuns([]Factor{{"users", "1"}}, map[string]float64{"tps": 150, "mb_s": 0.5, "busy": 60, "score": 150},
			map[string]float64{"tps": 200, "mb_s": 3, "busy": 99, "score": 200}),
		twoRuns([]Factor{{"users", "2"}}, map[string]float64{"tps": 1000, "mb_s": 2, "busy": 80, "score": 1},
			map[string]float64{"tps": 1200, "mb_s": 2.5, "busy": 90, "score": 2}),
	}
	sum, err := Summarise(cells, ms, "")
	if err != nil {
		t.Fatal(err)
	}
	t1 := math.Tan(0.475 * math.Pi) // t(0.975, 1)
	tps := sum.Cells[0].Metrics["tps"].Stats
	// 175 /x exp(12.706 x 25 / 175): 28.49 to 1074.9, where Student's t gives -142.7.
	if want := 175 / math.Exp(t1*25/175); math.Abs(tps.CILow-want) > 1e-9 || tps.Method != stats.LogT {
		t.Errorf("TPS 150 and 200: interval from %v (%s), want %v on the log scale", tps.CILow, tps.Method, want)
	}
	if score := sum.Cells[0].Metrics["score"].Stats; math.Abs(score.CILow-(175-t1*25)) > 1e-9 || score.Method != stats.StudentT {
		t.Errorf("a metric of any value: interval from %v (%s), want Student's %v", score.CILow, score.Method, 175-t1*25)
	}
	if got := sum.Cells[1].Metrics["busy"].Stats; got.Method != stats.ArcsineT {
		t.Errorf("CPU busy: method %s, want %s", got.Method, stats.ArcsineT)
	}
	for _, m := range sum.Metrics {
		if want := quantity.Of(m.Unit); m.Range != want {
			t.Errorf("metric %s carries the range %v, want its unit's %v", m.Key, m.Range, want)
		}
		for _, c := range sum.Cells {
			st := c.Metrics[m.Key].Stats
			if !m.Range.Contains(st.CILow) || !m.Range.Contains(st.CIHigh) {
				t.Errorf("%s %s: interval %v..%v leaves %v", c.ID, m.Key, st.CILow, st.CIHigh, m.Range)
			}
		}
		tbl, err := sum.Table(m.Key)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"tps": "on the log scale", "mb_s": "on the log scale", "busy": "arcsine-square-root", "score": "95% CI: Student's t with"}[m.Key]
		if !strings.Contains(tbl.Note, want) {
			t.Errorf("table %s's note %q does not say %q", m.Key, tbl.Note, want)
		}
		c, err := sum.Chart(ChartSpec{Metric: m.Key, X: "users"})
		if err != nil {
			t.Fatal(err) // an error bar outside the range fails Validate
		}
		if c.Y.Bounds() != m.Range {
			t.Errorf("chart %s: y within %v, want %v", c.Name, c.Y.Bounds(), m.Range)
		}
	}
	// A share measured just past 100% (values outside the range): Student's t cut at
	// 100, and the table says which cell.
	over := []Cell{twoRuns([]Factor{{"users", "1"}}, map[string]float64{"util": 99.8}, map[string]float64{"util": 100.2})}
	sum, err = Summarise(over, []Metric{{Key: "util", Label: "util", Unit: "%"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	st := sum.Cells[0].Metrics["util"].Stats
	if st.Method != stats.ClippedT || st.CIHigh != 100 || math.Abs(st.CILow-(100-t1*0.2)) > 1e-9 {
		t.Errorf("values past 100%%: %v..%v (%s), want %v..100 clipped", st.CILow, st.CIHigh, st.Method, 100-t1*0.2)
	}
	if tbl, _ := sum.Table("util"); !strings.Contains(tbl.Note, "users=1 have values outside that range") {
		t.Errorf("the note does not name the clipped cell: %q", tbl.Note)
	}
}

// TestZippedChart: with users and buffer zipped, a chart of TPS over users draws one
// line per engine through every level, its ticks naming both factors' levels; the
// factors are not series. Over a categorical factor the groups do the same.
func TestZippedChart(t *testing.T) {
	var cells []Cell
	for _, eng := range []string{"sqlite", "postgres"} {
		for i, u := range []string{"1", "4", "16"} {
			buf := []string{"8MB", "64MB", "1GB"}[i]
			v := float64(100 * (i + 1))
			cells = append(cells, twoRuns([]Factor{{"engine", eng}, {"users", u}, {"buffer", buf}},
				map[string]float64{"tps": v}, map[string]float64{"tps": v + 10}))
		}
	}
	sum, err := Summarise(cells, []Metric{{Key: "tps", Label: "TPS", Unit: "tx/s"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := sum.Chart(ChartSpec{Metric: "tps", X: "users"})
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Series) != 6 {
		t.Fatalf("without the zip: %d series, want the 6 one-point lines the zip avoids", len(plain.Series))
	}
	c, err := sum.Chart(ChartSpec{Metric: "tps", X: "users", With: []string{"buffer"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Series) != 2 || c.Series[0].Name != "engine=sqlite" || len(c.Series[0].Points) != 3 || len(c.Series[1].Points) != 3 {
		t.Errorf("zipped: series %+v, want engine=sqlite and engine=postgres of 3 points each", c.Series)
	}
	want := []chart.Tick{{Value: 1, Label: "1 / 8MB"}, {Value: 4, Label: "4 / 64MB"}, {Value: 16, Label: "16 / 1GB"}}
	if len(c.X.Ticks) != 3 || c.X.Ticks[0] != want[0] || c.X.Ticks[2] != want[2] || c.X.Label != "users / buffer" || !c.X.Integer {
		t.Errorf("zipped x axis %+v, want ticks %v, label users / buffer, whole numbers", c.X, want)
	}
	if c.Title != "TPS vs users and buffer" || !strings.Contains(c.Note, "users and buffer vary together") {
		t.Errorf("title %q, note %q", c.Title, c.Note)
	}
	bars, err := sum.Chart(ChartSpec{Metric: "tps", X: "engine", With: nil})
	if err != nil {
		t.Fatal(err)
	}
	if len(bars.Series) != 3 {
		t.Errorf("bars over engine: %d series, want one per users level (3)", len(bars.Series))
	}
	if _, err := sum.Chart(ChartSpec{Metric: "tps", X: "users", With: []string{"cache"}}); err == nil || !strings.Contains(err.Error(), `no factor "cache"`) {
		t.Errorf("zipped with an unknown factor: %v", err)
	}
	if _, err := c.SVG(chart.DefaultSize); err != nil {
		t.Error(err)
	}
}
