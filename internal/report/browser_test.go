package report

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tierbench/internal/report/reporttest"
	"tierbench/internal/rundir"
)

// TestReportInChromium writes the fixture study's report and opens it in headless
// Chromium: every chart drew what its data say, the page logged no error and asked
// for nothing but itself, and the metric tables show the means of the numbers in
// the cells' result.json files.
func TestReportInChromium(t *testing.T) {
	reporttest.ChromiumPath(t) // skip (or fail under CI) before any work
	doc, _, cells := sampleDocument(t)
	dir := t.TempDir()
	if err := doc.Write(dir); err != nil {
		t.Fatal(err)
	}
	page := reporttest.Load(t, filepath.Join(dir, rundir.ReportFile))
	page.CheckClean(t)
	page.CheckCharts(t, doc.Charts())
	page.CheckTablesShow(t)

	for _, m := range fixtureMetrics {
		tbl := page.Table(t, m.Key)
		if len(tbl.Rows) != len(cells) {
			t.Fatalf("table %s: %d rows, want %d", m.Key, len(tbl.Rows), len(cells))
		}
		for i, c := range cells {
			// The numbers as loadFixtureStudy read them from result.json, averaged here.
			var vals []float64
			for _, r := range c.Runs {
				if v, ok := r.Metrics[m.Key]; ok {
					vals = append(vals, v)
				}
			}
			row := tbl.Rows[i]
			if row[0].Text != c.Factor("engine") || row[1].Text != c.Factor("users") {
				t.Errorf("table %s row %d is %s/%s, want %s", m.Key, i, row[0].Text, row[1].Text, c.CellID())
			}
			if n, _ := strconv.Atoi(row[2].Text[:1]); n != len(vals) {
				t.Errorf("table %s, %s: n %q, want %d", m.Key, c.CellID(), row[2].Text, len(vals))
			}
			mean := row[3]
			if mean.Value == nil || *mean.Value != meanOf(vals) {
				t.Errorf("table %s, %s: mean %q (%v), want %v", m.Key, c.CellID(), mean.Text, mean.Value, meanOf(vals))
			}
		}
	}
}

// TestLongLabelsInChromium: a study whose level has a 300-character label (which a
// study file accepts) still draws every chart whole and shows its table within the
// page's width: the label is cut in the charts and wraps in the table.
func TestLongLabelsInChromium(t *testing.T) {
	reporttest.ChromiumPath(t)
	long := strings.Repeat("x", 290) + "-placement"
	var cells []Cell
	for _, p := range []string{long, "short"} {
		for i, u := range []string{"1", "2", "4"} {
			v := float64(100 * (i + 1))
			cells = append(cells, twoRuns([]Factor{{"placement", p}, {"users", u}}, map[string]float64{"tps": v}, map[string]float64{"tps": v + 20}))
		}
	}
	sum, err := Summarise(cells, []Metric{{Key: "tps", Label: "TPS", Unit: "tx/s"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	doc := New("long labels")
	tbl, err := sum.Table("tps")
	if err != nil {
		t.Fatal(err)
	}
	line, err := sum.Chart(ChartSpec{Metric: "tps", X: "users"})
	if err != nil {
		t.Fatal(err)
	}
	bars, err := sum.Chart(ChartSpec{Metric: "tps", X: "placement"})
	if err != nil {
		t.Fatal(err)
	}
	doc.Section("Results").AddTable(tbl).AddChart(line).AddChart(bars)
	dir := t.TempDir()
	if err := doc.Write(dir); err != nil {
		t.Fatal(err)
	}
	page := reporttest.Load(t, filepath.Join(dir, rundir.ReportFile))
	page.CheckClean(t)
	page.CheckCharts(t, doc.Charts())
	page.CheckTablesShow(t)
	for _, c := range page.Charts {
		var bar float64 // the tallest bar, in SVG units of a 288-unit-high canvas
		for _, m := range c.Marks {
			if m.Kind == "bar" {
				bar = max(bar, m.Height)
			}
		}
		if c.Name == bars.Name && bar < 100 {
			t.Errorf("chart %s: its tallest bar is %g units high: the labels took the plot's room", c.Name, bar)
		}
	}
}
