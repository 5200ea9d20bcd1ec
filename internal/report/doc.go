// Package report builds tierbench's reports: one self-contained report.html (no
// network: CSS inline, charts as inline SVG) with figures/NAME.png and .svg beside
// it, and the machine-readable cells.csv and summary.json of a study. The study
// report and the per-run report are both a Document; this package does not read
// result.json or metrics.jsonl, its callers do.
//
// A Document holds sections of text, preformatted text, a Plan (what was run), a
// Table and a chart.Chart. Every number of a table carries its exact value in the
// page (data-value), every chart its data as JSON (script.chart-data) and as a
// folded table, so a test compares what the page shows with what was measured
// (package reporttest does so in headless Chromium). A point that is no number (NaN,
// an infinity: a figure missing from a run) is left out of its chart when the page is
// rendered, and the chart's note says so (chart.LeaveOutNonFinite), rather than
// failing the whole report.
//
// For a study, Cells (factor values and each repetition's metrics) go through
// Summarise, which computes each metric's mean, SD, min, max and 95% CI (package
// stats), within the metric's range (Metric.Range: its unit's in package quantity,
// so that a TPS interval never goes below 0 nor a share past 100%), and compares
// each cell with the baseline (% difference, Welch's p, significant or not).
// Summary.Table is a metric's table, whose note says how its intervals were made;
// Summary.Chart charts a metric over a factor: lines over a numeric factor, one per
// combination of the other factors, or grouped bars over a categorical one; factors
// zipped to it (ChartSpec.With) share its axis rather than make series.
//
// Besides sections of text, tables and charts, a document may show a few numbers
// large (Highlights) and small multiples (charts side by side at SmallSize): the
// run report's one-screen summary. Tables wider than the text column take the page's
// width, and their text wraps.
//
//	cells := []report.Cell{{Factors: []report.Factor{{"engine", "sqlite"}, {"users", "2"}},
//		Runs: []report.Run{{Repetition: 1, Metrics: map[string]float64{"tpm": 1497}}, ...}}, ...}
//	metrics := []report.Metric{{Key: "tpm", Label: "TPM", Unit: "tx/min"}}
//	sum, err := report.Summarise(cells, metrics, "engine=sqlite users=2")
//	doc := report.New("hybrid placement")
//	sec := doc.Section("Results")
//	tbl, err := sum.Table("tpm")
//	line, err := sum.Chart(report.ChartSpec{Metric: "tpm", X: "users"})
//	sec.AddTable(tbl).AddChart(line)
//	err = doc.Write(dir) // dir/report.html, dir/figures/tpm-vs-users.{png,svg}
//
// The run example in example_test.go shows the per-run side.
package report
