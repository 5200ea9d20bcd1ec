package report_test

import (
	"fmt"
	"os"
	"path/filepath"

	"tierbench/internal/report"
	"tierbench/internal/report/chart"
)

// A study's cells become a metric table and a line chart; a run's monitoring
// samples become a time series; Write puts report.html and its figures in dir.
func Example() {
	cell := func(engine, users string, tpm ...float64) report.Cell {
		c := report.Cell{Factors: []report.Factor{{Name: "engine", Value: engine}, {Name: "users", Value: users}}}
		for i, v := range tpm {
			c.Runs = append(c.Runs, report.Run{Repetition: i + 1, Metrics: map[string]float64{"tpm": v}})
		}
		return c
	}
	cells := []report.Cell{
		cell("sqlite", "2", 1480, 1514), cell("sqlite", "8", 3187, 3285),
		cell("postgres", "2", 3803, 4403), cell("postgres", "8", 8220),
	}
	sum, err := report.Summarise(cells, []report.Metric{{Key: "tpm", Label: "TPM", Unit: "tx/min"}}, "engine=sqlite users=2")
	if err != nil {
		fmt.Println(err)
		return
	}
	doc := report.New("TPC-C: engine x users")
	doc.Section("Plan").AddPlan(report.Plan{Items: []report.Item{{Key: "Repetitions", Value: "2"}}})
	tbl, _ := sum.Table("tpm")
	line, _ := sum.Chart(report.ChartSpec{Metric: "tpm", X: "users"})
	doc.Section("Results").AddTable(tbl).AddChart(line)

	samples := []chart.Sample{{T: 0, Values: map[string]float64{"util": 0.42}}, {T: 1, Values: map[string]float64{"util": 0.57}}}
	doc.Section("Monitoring").AddChart(chart.FromSamples(chart.TimeSeries, "device-utilisation", "Device utilisation",
		chart.Axis{Label: "utilisation", Unit: "%"}, samples, chart.SeriesOf{Key: "util", Name: "data tier", Scale: 100}))

	dir, _ := os.MkdirTemp("", "report-example")
	defer os.RemoveAll(dir)
	if err := doc.Write(dir); err != nil {
		fmt.Println(err)
		return
	}
	figs, _ := filepath.Glob(filepath.Join(dir, "figures", "*"))
	fmt.Println(len(figs), "figure files;", "postgres users=8 vs baseline:", tbl.Rows[3][9].Text, tbl.Rows[3][11].Text)
	// The baseline mean is (1480 + 1514) / 2 = 1497; 100 x (8220 - 1497) / 1497 = 449.10;
	// one repetition cannot be tested.
	// Output: 4 figure files; postgres users=8 vs baseline: +449.10% untestable
}
