package report

import (
	"path/filepath"
	"strconv"
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
