package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"tierbench/internal/report/chart"
)

// fixtureResult is the part of a `tpcc run` result.json the fixture study reports.
type fixtureResult struct {
	Status       string  `json:"status"`
	Error        string  `json:"error"`
	TPM          float64 `json:"tpm"`
	Transactions map[string]struct {
		Latency struct {
			P50 float64 `json:"p50_ms"`
			P95 float64 `json:"p95_ms"`
			P99 float64 `json:"p99_ms"`
		} `json:"latency"`
	} `json:"transactions"`
	Storage *struct {
		EnergyJ float64 `json:"device_energy_j"`
		CO2g    float64 `json:"device_co2_g"`
	} `json:"storage"`
}

var fixtureMetrics = []Metric{
	{Key: "tpm", Label: "TPM", Unit: "tx/min"},
	{Key: "new_order_p50_ms", Label: "New-Order p50", Unit: "ms", LowerIsBetter: true},
	{Key: "new_order_p95_ms", Label: "New-Order p95", Unit: "ms", LowerIsBetter: true},
	{Key: "new_order_p99_ms", Label: "New-Order p99", Unit: "ms", LowerIsBetter: true},
	{Key: "device_energy_j", Label: "device energy", Unit: "J", LowerIsBetter: true},
	{Key: "device_co2_g", Label: "device CO2", Unit: "g", LowerIsBetter: true},
}

const fixtureBaseline = "engine=sqlite users=2"

// loadFixtureStudy reads testdata/study/FACTORS/rep-N/result.json, as a study runner
// would: a cell per directory named "name=value,name=value", a run per repetition.
func loadFixtureStudy(t testing.TB) []Cell {
	t.Helper()
	dirs, err := filepath.Glob("testdata/study/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixture study: %v", err)
	}
	slices.SortFunc(dirs, func(a, b string) int { // engine, then users as a number
		fa, fb := strings.Split(filepath.Base(a), ","), strings.Split(filepath.Base(b), ",")
		if c := strings.Compare(fb[0], fa[0]); c != 0 { // sqlite first: the baseline
			return c
		}
		ua, _ := strconv.Atoi(strings.TrimPrefix(fa[1], "users="))
		ub, _ := strconv.Atoi(strings.TrimPrefix(fb[1], "users="))
		return ua - ub
	})
	var cells []Cell
	for _, d := range dirs {
		var c Cell
		for _, kv := range strings.Split(filepath.Base(d), ",") {
			name, value, _ := strings.Cut(kv, "=")
			c.Factors = append(c.Factors, Factor{Name: name, Value: value})
		}
		reps, _ := filepath.Glob(filepath.Join(d, "rep-*", "result.json"))
		for i, path := range reps {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var r fixtureResult
			if err := json.Unmarshal(data, &r); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			run := Run{Repetition: i + 1, Dir: filepath.Dir(path), Error: r.Error, Metrics: map[string]float64{}}
			if r.Status == "ok" {
				no := r.Transactions["new_order"].Latency
				run.Metrics["tpm"] = r.TPM
				run.Metrics["new_order_p50_ms"], run.Metrics["new_order_p95_ms"], run.Metrics["new_order_p99_ms"] = no.P50, no.P95, no.P99
				run.Metrics["device_energy_j"], run.Metrics["device_co2_g"] = r.Storage.EnergyJ, r.Storage.CO2g
			}
			c.Runs = append(c.Runs, run)
		}
		cells = append(cells, c)
	}
	return cells
}

// fixtureSamples is a monitoring series of 10 minutes at 1 s, as a sampler writes.
func fixtureSamples() []chart.Sample {
	var out []chart.Sample
	for i := range 600 {
		out = append(out, chart.Sample{T: float64(i) + 0.25, Values: map[string]float64{
			"data_util":  0.5 + 0.4*math.Sin(float64(i)/30),
			"wal_util":   0.2 + 0.1*math.Cos(float64(i)/11),
			"cpu_watts":  20 + 10*math.Abs(math.Sin(float64(i)/50)),
			"dram_watts": 4 + float64(i%7)/7,
		}})
	}
	return out
}

// sampleDocument is a study report and a run report in one document, with every
// kind of chart.
func sampleDocument(t testing.TB) (*Document, *Summary, []Cell) {
	t.Helper()
	cells := loadFixtureStudy(t)
	sum, err := Summarise(cells, fixtureMetrics, fixtureBaseline)
	if err != nil {
		t.Fatal(err)
	}
	doc := New("fixture study: TPC-C on SQLite and PostgreSQL")
	doc.Subtitle = "a test fixture: 6 cells x 2 repetitions"
	plan := doc.Section("Plan")
	plan.AddPlan(Plan{
		Description: "TPC-C, 2 warehouses, engine x users, two repetitions; one PostgreSQL run fails on purpose.",
		Items:       []Item{{"Cells", "6"}, {"Repetitions", "2"}, {"Baseline", fixtureBaseline}},
		Source:      "name: fixture\nfactors:\n  engine: [sqlite, postgres]\n  users: [2, 4, 8]\n",
	})
	res := doc.Section("Results")
	for _, m := range fixtureMetrics {
		tbl, err := sum.Table(m.Key)
		if err != nil {
			t.Fatal(err)
		}
		res.AddTable(tbl)
	}
	line, err := sum.Chart(ChartSpec{Metric: "tpm", X: "users"})
	if err != nil {
		t.Fatal(err)
	}
	bars, err := sum.Chart(ChartSpec{Metric: "tpm", X: "engine", Name: "tpm-per-engine", Title: "TPM per engine and users"})
	if err != nil {
		t.Fatal(err)
	}
	energy, err := sum.Chart(ChartSpec{Metric: "device_energy_j", X: "users", Kind: chart.Bar, Name: "energy-per-cell", Title: "Device energy per cell"})
	if err != nil {
		t.Fatal(err)
	}
	res.AddChart(line).AddChart(bars).AddChart(energy)
	lat := chart.New(chart.Line, "latency-percentiles", "New-Order latency percentiles on PostgreSQL", chart.Axis{Label: "users", Log: true}, chart.Axis{Label: "latency", Unit: "ms", Log: true})
	for _, p := range []string{"p50", "p95", "p99"} {
		var pts []chart.Point
		for _, c := range sum.Cells {
			if factorOf(c.Factors, "engine") == "postgres" {
				u, _ := strconv.ParseFloat(factorOf(c.Factors, "users"), 64)
				st := c.Metrics["new_order_"+p+"_ms"].Stats
				pts = append(pts, chart.XY(u, st.Mean))
			}
		}
		lat.Add(p, pts...)
	}
	res.Section("Latency").AddChart(lat)

	run := doc.Section("One run: monitoring")
	run.AddPre("TPC-C on postgres, 4 users: 7465.76 TPM\n")
	samples := fixtureSamples()
	run.AddChart(chart.FromSamples(chart.TimeSeries, "device-utilisation", "Device utilisation", chart.Axis{Label: "utilisation", Unit: "%"}, samples,
		chart.SeriesOf{Key: "data_util", Name: "data tier", Scale: 100}, chart.SeriesOf{Key: "wal_util", Name: "wal tier", Scale: 100}))
	run.AddChart(chart.FromSamples(chart.StackedArea, "watts", "Watts over time", chart.Axis{Label: "power", Unit: "W"}, samples,
		chart.SeriesOf{Key: "cpu_watts", Name: "CPU package"}, chart.SeriesOf{Key: "dram_watts", Name: "DRAM"}))
	stacked := chart.NewBars("energy-components", "Energy per component", []string{"sqlite", "postgres"},
		chart.Axis{Label: "engine"}, chart.Axis{Label: "energy", Unit: "J"}, true)
	stacked.AddValues("device", 125, 126).AddValues("CPU", 300, 410)
	run.AddChart(stacked)
	return doc, sum, cells
}

// meanOf is the plain mean, computed here apart from package stats.
func meanOf(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
