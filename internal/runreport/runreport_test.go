package runreport_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"tierbench/internal/energy"
	"tierbench/internal/metrics"
	"tierbench/internal/report"
	"tierbench/internal/report/chart"
	"tierbench/internal/report/quantity"
	"tierbench/internal/report/reporttest"
	"tierbench/internal/result"
	"tierbench/internal/rundir"
	"tierbench/internal/runreport"
	"tierbench/internal/runreport/runreporttest"
	"tierbench/internal/workload"
	"tierbench/internal/workload/postmark"
	"tierbench/internal/workload/tpcc"
	"tierbench/internal/workload/tpch"
	"tierbench/internal/workload/vuser"
)

func build(t *testing.T, dir string, opt runreport.Options) *runreport.Report {
	t.Helper()
	rep, err := runreport.Build(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func tableNamed(t *testing.T, doc *report.Document, name string) *report.Table {
	t.Helper()
	for _, tb := range doc.Tables() {
		if tb.Name == name {
			return tb
		}
	}
	t.Fatalf("the report has no table %s", name)
	return nil
}

// cell is the number in row (by its first column's text) and column (by heading).
func cell(t *testing.T, tb *report.Table, row, column string) float64 {
	t.Helper()
	col := -1
	for i, c := range tb.Columns {
		if c.Heading() == column {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("table %s has no column %q", tb.Name, column)
	}
	for _, r := range tb.Rows {
		if r[0].Text == row {
			if r[col].Value == nil {
				t.Fatalf("table %s, %s, %s: %q is not a number", tb.Name, row, column, r[col].Text)
			}
			return *r[col].Value
		}
	}
	t.Fatalf("table %s has no row %q", tb.Name, row)
	return 0
}

type xy [2]float64

func points(c *chart.Chart, series string) []xy {
	for _, s := range c.Series {
		if s.Name == series {
			var out []xy
			for _, p := range s.Points {
				out = append(out, xy{p.X, p.Y})
			}
			return out
		}
	}
	return nil
}

func seriesNames(c *chart.Chart) []string {
	var out []string
	for _, s := range c.Series {
		out = append(out, s.Name)
	}
	return out
}

// TestFixtureCharts: every chart of the fixture run, its series in order and its
// points as the fixture's lines give them (the mark in the same millisecond as a
// tick left out), and every point checked against the files by runreporttest.
func TestFixtureCharts(t *testing.T) {
	dir := writeFixture(t)
	rep := build(t, dir, runreport.Options{})
	runreporttest.CheckCharts(t, dir, rep)

	want := []struct {
		name   string
		series []string
		check  string
		points []xy
	}{
		// the summary's small multiples first
		{"summary-throughput", []string{"transactions", "errors"}, "transactions", []xy{{1, 100}, {2, 110}, {3, 90}}},
		{"summary-latency", []string{"p50", "p95", "p99"}, "p99", []xy{{1, 8}, {2, 10}, {3, 12}}},
		{"summary-cpu", []string{"busy", "iowait"}, "busy", []xy{{1, 50}, {2, 60}, {3, 70}}},
		{"summary-devices", []string{"disk sda", "tier data"}, "tier data", []xy{{1, 95}, {2, 95}, {3, 95}}},
		{"throughput", []string{"transactions", "statements", "errors"}, "transactions", []xy{{1, 100}, {2, 110}, {3, 90}}},
		{"latency", []string{"p50", "p95", "p99", "max"}, "p95", []xy{{1, 4}, {2, 5}, {3, 6}}},
		{"host-cpu", []string{"busy", "user", "system", "irq", "iowait", "steal"}, "busy", []xy{{1, 50}, {2, 60}, {3, 70}}},
		{"host-cpu-each", []string{"cpu 0", "cpu 2", "cpu 10"}, "cpu 10", []xy{{1, 50}, {2, 40}, {3, 30}}},
		{"host-memory", []string{"available", "used", "page cache", "dirty"}, "available", []xy{{0, 6000}, {1, 5900}, {2, 5800}, {3, 5700}}},
		{"host-pressure", []string{"cpu some", "io some", "io full"}, "io full", []xy{{1, 1}, {2, 1}, {3, 1}}},
		{"device-iops", []string{"disk sda reads", "disk sda writes", "disk sda flushes", "tier data reads", "tier data writes", "tier data flushes"},
			"tier data writes", []xy{{1, 20}, {2, 20}, {3, 20}}},
		{"device-mb-s", []string{"disk sda read", "disk sda written", "tier data read", "tier data written"}, "disk sda written", []xy{{1, 1.6}, {2, 1.6}, {3, 1.6}}},
		{"device-util", []string{"disk sda", "tier data"}, "tier data", []xy{{1, 95}, {2, 95}, {3, 95}}},
		{"device-await", []string{"disk sda", "tier data"}, "disk sda", []xy{{1, 2.5}, {2, 2.5}, {3, 2.5}}},
		{"device-queue", []string{"disk sda", "tier data"}, "tier data", []xy{{1, 3}, {2, 3}, {3, 3}}},
		{"engine-hit-ratio", []string{"buffer hit"}, "buffer hit", []xy{{1, 90}, {2, 92}, {3, 88}}},
		{"engine-commits", []string{"commits", "rollbacks"}, "commits", []xy{{1, 120}, {2, 130}, {3, 110}}},
		{"engine-sessions", []string{"active", "waiting for a lock", "wait Lock.transactionid"}, "waiting for a lock", []xy{{1, 1}, {2, 1}, {3, 1}}},
		{"engine-own-pg-bytes-per-s", []string{"temp bytes"}, "temp bytes", []xy{{1, 90}, {2, 92}, {3, 88}}},
		{"engine-own-pg-rows-per-s", []string{"tup fetched", "tup returned"}, "tup returned", []xy{{1, 1200}, {2, 1300}, {3, 1100}}},
		{"engine-own-pg-sessions", []string{"sessions idle in transaction"}, "sessions idle in transaction", []xy{{1, 1}, {2, 1}, {3, 1}}},
		{"process-cpu", []string{"server", "tierbench", "tierbench waiting for a CPU"}, "tierbench", []xy{{1, 0.3}, {2, 0.35}, {3, 0.4}}},
		{"process-rss", []string{"server", "tierbench"}, "tierbench", []xy{{0, 20}, {1, 21}, {2, 21}, {3, 21}}},
		{"energy-watts", []string{"cpu", "dram"}, "cpu", []xy{{1, 12}, {2, 13}, {3, 14}}},
	}
	charts := rep.Doc.Charts()
	for _, c := range charts {
		if c.Name == "engine-own-pg-rows-per-s" && !strings.Contains(c.Note, "Zero throughout, not drawn: deadlocks.") {
			t.Errorf("chart %s: note %q does not name the series that were zero", c.Name, c.Note)
		}
		// every quantity a run report charts has a range its axis keeps to
		if want := map[string]bool{"%": true}[c.Y.Unit]; !c.Y.Bounds().Bounded() || want != (c.Y.Bounds() == quantity.Percent) {
			t.Errorf("chart %s: y %q of unit %q has the range %v", c.Name, c.Y.Label, c.Y.Unit, c.Y.Bounds())
		}
	}
	if len(charts) != len(want) {
		t.Errorf("%d charts, want %d", len(charts), len(want))
	}
	for i, w := range want {
		if i >= len(charts) {
			break
		}
		c := charts[i]
		if c.Name != w.name {
			t.Errorf("chart %d is %s, want %s", i, c.Name, w.name)
			continue
		}
		if got := seriesNames(c); !reflect.DeepEqual(got, w.series) {
			t.Errorf("chart %s: series %q, want %q", c.Name, got, w.series)
		}
		if got := points(c, w.check); !reflect.DeepEqual(got, w.points) {
			t.Errorf("chart %s, %s: %v, want %v", c.Name, w.check, got, w.points)
		}
	}
}

// TestFixtureThinned: with at most 2 points a series, each point is the mean of 2
// consecutive lines at the later one's time, and the note says so.
func TestFixtureThinned(t *testing.T) {
	dir := writeFixture(t)
	rep := build(t, dir, runreport.Options{MaxPoints: 2})
	runreporttest.CheckCharts(t, dir, rep)
	for _, tc := range []struct {
		chart, series string
		want          []xy
	}{
		{"host-cpu", "busy", []xy{{1, 50}, {3, 65}}},
		{"energy-watts", "dram", []xy{{1, 3}, {3, 3}}},
		{"throughput", "transactions", []xy{{2, 105}, {3, 90}}},
	} {
		c := reporttest.ChartNamed(t, rep.Doc.Charts(), tc.chart)
		if got := points(c, tc.series); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s, %s: %v, want %v", tc.chart, tc.series, got, tc.want)
		}
		if !strings.Contains(c.Note, "mean of 2 consecutive samples") {
			t.Errorf("%s's note does not say it is thinned: %q", tc.chart, c.Note)
		}
	}
}

// TestNullInIntervals: an interval whose TPS JSON could not hold is in
// intervals.jsonl as null (metrics.JSONLines); the report draws no point for it,
// rather than a TPS of 0, and a thinned point is the mean of the numbers its group has.
func TestNullInIntervals(t *testing.T) {
	dir := writeFixture(t)
	ivs := fixtureIntervals()
	ivs[1].TPS = math.NaN()
	f, err := os.Create(filepath.Join(dir, "intervals.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	jl := metrics.NewJSONLines(f)
	for _, iv := range ivs {
		jl.Write(iv)
	}
	f.Close()
	if jl.NonFinite() == nil || jl.Lines() != 3 {
		t.Fatalf("the fixture's null was not written: %v, %d lines", jl.NonFinite(), jl.Lines())
	}
	for _, tc := range []struct {
		max                int
		transactions, stmt []xy
	}{
		{0, []xy{{1, 100}, {3, 90}}, []xy{{1, 200}, {2, 220}, {3, 180}}},
		{2, []xy{{2, 100}, {3, 90}}, []xy{{2, 210}, {3, 180}}},
	} {
		rep := build(t, dir, runreport.Options{MaxPoints: tc.max})
		runreporttest.CheckCharts(t, dir, rep)
		c := reporttest.ChartNamed(t, rep.Doc.Charts(), "throughput")
		if got := points(c, "transactions"); !reflect.DeepEqual(got, tc.transactions) {
			t.Errorf("at most %d points: transactions %v, want %v", tc.max, got, tc.transactions)
		}
		if got := points(c, "statements"); !reflect.DeepEqual(got, tc.stmt) {
			t.Errorf("at most %d points: statements %v, want %v", tc.max, got, tc.stmt)
		}
	}
}

// TestFixtureTables: the headline, the levels, the windows (worked out from the
// monitoring section's counters by hand), the verdict with its checks and
// thresholds, and the energy per component.
func TestFixtureTables(t *testing.T) {
	doc := build(t, writeFixture(t), runreport.Options{}).Doc
	for _, c := range []struct {
		table, row, column string
		want               float64
	}{
		{"headline", "TPS", "value", 110},
		{"headline", "QPS", "value", 220},
		{"levels", "2", "TPS (tx/s)", 110},
		{"levels", "2", "p95 (ms)", 5},
		{"windows", "start (s)", "run", 0},
		{"windows", "end (s)", "run", 3},
		{"windows", "start (s)", "2 users", 0.5},
		{"windows", "CPU busy (%)", "run", 50}, // 3 of 6 CPU seconds
		{"windows", "user (%)", "run", 35},
		{"windows", "system (%)", "run", 20},
		{"windows", "iowait (%)", "run", 4},
		{"windows", "CPU pressure (%)", "run", 6},
		{"windows", "page cache (MiB)", "run", 1150},
		{"windows", "server CPU (cores)", "run", 1},
		{"windows", "tierbench CPU (cores)", "run", 0.35},
		{"windows", "buffer hits (%)", "run", 90}, // 900 of 1000
		{"windows", "commits (/s)", "run", 120},
		{"windows", "disk sda util (%)", "run", 30},
		{"windows", "disk sda read (MB/s)", "run", 0.8},
		{"windows", "disk sda await (ms)", "run", 2.5}, // 1.05 s over 420 requests
		{"windows", "tier data await (ms)", "run", 12}, // 3.672 s over 306 requests
		{"windows", "tier data util (%)", "run", 99},
		{"verdicts", "2 users", "explains (% of the users' time)", 80},
		{"verdicts", "2 users", "lock (%)", 10},
		{"verdicts", "2 users", "io (%)", 80},
		{"verdict-1-2-users-checks", "device", "measured", 99},
		{"verdict-1-2-users-checks", "device", "threshold", 90},
		{"verdict-1-2-users-findings", "device", "explains (%)", 80},
		{"thresholds", "device_util_pct", "value", 90},
		{"thresholds", "lock_pct", "value", 50},
		{"energy-1-run", "cpu", "energy (J)", 39},
		{"energy-1-run", "cpu", "average (W)", 13},
		{"energy-1-run", "cpu", "peak (W)", 14},
		{"energy-1-run", "cpu", "per transaction (J)", 39.0 / 330},
		{"energy-1-run", "total", "energy (J)", 48},
		{"energy-1-run", "total", "CO2 (g)", 48 / 3.6e6 * 400},
		{"sci-embodied", "host", "embodied (kg CO2e)", energy.HostEmbodiedKg},
		{"sci-embodied", "data: nvme", "share (g)", 0.0019013},
		{"storage", "data", "utilisation (%)", 99},
		{"storage", "data", "p99 (ms)", 25}, // 25,000 µs
		{"storage", "data", "energy (J)", 21.5},
		{"storage", "data", "flushes", 6},
	} {
		if got := cell(t, tableNamed(t, doc, c.table), c.row, c.column); got != c.want {
			t.Errorf("%s, %s, %s: %v, want %v", c.table, c.row, c.column, got, c.want)
		}
	}
	if e := tableNamed(t, doc, "sci-embodied"); e.Rows[0][5].Text != "profile or flag" || e.Rows[1][5].Text != "default" {
		t.Errorf("embodied figures %q and %q, want profile or flag, and default", e.Rows[0][5].Text, e.Rows[1][5].Text)
	}
	v := tableNamed(t, doc, "verdicts")
	if got := v.Rows[0][2].Text; got != "device-bound" {
		t.Errorf("the verdict of 2 users is %q, want device-bound", got)
	}
	html, err := doc.HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Lock.transactionid 10%", "Not available on this host: RAPL: a test has none", "status ok",
		"Energy, run: the total is not the whole system&#39;s: it leaves out base (see above), storage:wal (a test gives it no time).",
		"Time 0 is the monitor&#39;s first sample. The measured windows (the bands behind each chart): 2 users from 0.5 to 2 s."} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the page does not say %q", want)
		}
	}
}

// TestBadRunDirs: no result.json names the path; a line of metrics.jsonl or
// intervals.jsonl that does not decode names the file and the line; a run without
// monitoring still gets a report, which says so.
func TestBadRunDirs(t *testing.T) {
	empty := t.TempDir()
	_, err := runreport.Build(empty, runreport.Options{})
	var notRun *runreport.NotRunDirError
	if !errors.As(err, &notRun) || !strings.Contains(err.Error(), filepath.Join(empty, "result.json")) {
		t.Errorf("a directory without result.json: %v", err)
	}
	if err := runreport.IsRunDir(empty); !errors.As(err, &notRun) {
		t.Errorf("IsRunDir of a directory without result.json: %v", err)
	}

	for _, file := range []string{"metrics.jsonl", "intervals.jsonl"} {
		dir := writeFixture(t)
		path := filepath.Join(dir, file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		lines[1] = `{"time": "2026-01-02T03:04:06Z", "values": {"host.cpus": 2` + "\n" // cut short
		if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = runreport.Build(dir, runreport.Options{})
		if err == nil || !strings.Contains(err.Error(), path+", line 2") {
			t.Errorf("%s with a bad line 2: %v, want an error naming %s, line 2", file, err, path)
		}
	}

	dir := writeFixture(t)
	res := fixtureResult()
	res.Monitoring, res.Verdict = nil, nil
	writeJSON(t, filepath.Join(dir, runreport.ResultFile), res)
	if err := os.Remove(filepath.Join(dir, "metrics.jsonl")); err != nil {
		t.Fatal(err)
	}
	rep := build(t, dir, runreport.Options{})
	var names []string
	for _, c := range rep.Doc.Charts() {
		names = append(names, c.Name)
	}
	if !reflect.DeepEqual(names, []string{"summary-throughput", "summary-latency", "throughput", "latency", "energy-watts"}) {
		t.Errorf("without monitoring the charts are %q, want throughput and latency (in the summary too) and the energy section's", names)
	}
	if p := points(reporttest.ChartNamed(t, rep.Doc.Charts(), "energy-watts"), "cpu"); !reflect.DeepEqual(p, []xy{{1, 12}, {3, 14}}) {
		t.Errorf("the energy section's cpu watts without monitoring: %v", p)
	}
	runreporttest.CheckCharts(t, dir, rep)
	html, err := rep.Doc.HTML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "This run was not monitored") || !strings.Contains(string(html), "Time 0 is the start of the first report interval") {
		t.Errorf("the report of a run without monitoring does not say so")
	}
	if p := points(reporttest.ChartNamed(t, rep.Doc.Charts(), "throughput"), "transactions"); !reflect.DeepEqual(p, []xy{{1, 100}, {2, 110}, {3, 90}}) {
		t.Errorf("throughput without monitoring: %v", p)
	}

	// Neither samples nor intervals (TPC-H with --sample off): time 0 is the energy
	// recorder's first sample.
	res.IntervalsFile = ""
	writeJSON(t, filepath.Join(dir, runreport.ResultFile), res)
	rep = build(t, dir, runreport.Options{})
	runreporttest.CheckCharts(t, dir, rep)
	if c := rep.Doc.Charts(); len(c) != 1 || !reflect.DeepEqual(points(c[0], "dram"), []xy{{1, 3}, {2, 3}, {3, 3}}) {
		t.Errorf("the only chart without samples and intervals: %+v", c)
	}

	// A workload this tierbench does not know: its sections, and a note.
	unknown := t.TempDir()
	if err := os.WriteFile(filepath.Join(unknown, runreport.ResultFile), []byte(`{"benchmark": "future", "status": "failed", "error": "it broke"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	html, err = build(t, unknown, runreport.Options{}).Doc.HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`a result of &#34;future&#34;, which this tierbench does not know`, "failed (it broke)", "This run was not monitored"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the report of an unknown workload's result does not say %q", want)
		}
	}

	// The monitoring section names metrics.jsonl, which is gone: the report says so.
	dir = writeFixture(t)
	os.Remove(filepath.Join(dir, "metrics.jsonl"))
	html, err = build(t, dir, runreport.Options{}).Doc.HTML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "metrics.jsonl is missing") {
		t.Errorf("the report of a run whose metrics.jsonl is gone does not say so")
	}
}

// TestTornLastLine: a run killed while it wrote leaves metrics.jsonl or
// intervals.jsonl cut in the middle of its last line; the report uses the complete
// lines, draws every chart from them, and says that the last line was torn.
func TestTornLastLine(t *testing.T) {
	for _, file := range []string{"metrics.jsonl", "intervals.jsonl"} {
		t.Run(file, func(t *testing.T) {
			dir := writeFixture(t)
			path := filepath.Join(dir, file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Count(string(data), "\n")
			// cut 30 bytes into the last line, newline and all: what a buffered
			// writer's partial flush leaves
			cut := strings.LastIndex(strings.TrimSuffix(string(data), "\n"), "\n") + 31
			if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := runreport.Build(dir, runreport.Options{})
			if err != nil {
				t.Fatalf("a torn last line fails the report: %v", err)
			}
			runreporttest.CheckCharts(t, dir, rep)
			html, err := rep.Doc.HTML()
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("ends in a torn line %d (30 bytes", lines)
			if !strings.Contains(string(html), want) || !strings.Contains(string(html), fmt.Sprintf("its %d complete lines are used", lines-1)) {
				t.Errorf("the report does not say %q", want)
			}
			if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], want) {
				t.Errorf("notes %q, want the torn line's for the terminal", rep.Notes)
			}
			which := map[string]string{"metrics.jsonl": "host-cpu", "intervals.jsonl": "throughput"}[file]
			c := reporttest.ChartNamed(t, rep.Doc.Charts(), which)
			if n := len(c.Series[0].Points); n != 2 {
				t.Errorf("chart %s: %d points, want the 2 of the complete lines", which, n)
			}
		})
	}
}

// TestReportInChromium writes the fixture run's report and opens it offline in
// headless Chromium: every chart drew what its data say, the page logged no error
// and asked for nothing but itself, and its tables show the fixture's numbers.
func TestReportInChromium(t *testing.T) {
	reporttest.ChromiumPath(t) // skip (or fail under CI) before any work
	dir := writeFixture(t)
	path, notes, err := runreport.Write(dir, runreport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, rundir.ReportFile) || len(notes) != 0 {
		t.Errorf("Write returned %s and the notes %q, want none of a whole run", path, notes)
	}
	doc := build(t, dir, runreport.Options{}).Doc
	page := reporttest.Load(t, path)
	page.CheckClean(t)
	page.CheckCharts(t, doc.Charts())
	head := page.Table(t, "headline")
	if len(head.Rows) != 2 || head.Rows[0][0].Text != "TPS" || head.Rows[0][3].Text != "tps" || head.Rows[0][1].Value == nil || *head.Rows[0][1].Value != 110 {
		t.Errorf("the page's headline table: %+v", head.Rows)
	}
	// The summary, on the first screen: the headline numbers by their titles, and
	// the small multiples of throughput, latency, CPU and devices over time.
	if h := page.Highlights; len(h) != 2 || h[0].Title != "TPS" || h[0].Value == nil || *h[0].Value != 110 || h[1].Title != "QPS" {
		t.Errorf("the page's highlights: %+v, want TPS 110 and QPS 220", h)
	}
	for _, c := range page.Charts[:4] {
		if !strings.HasPrefix(c.Name, "summary-") || c.Bottom > page.Height {
			t.Errorf("chart %s ends %g px down the page: the summary's small multiples must show on the first %g px", c.Name, c.Bottom, page.Height)
		}
	}
	if c := page.Charts[4]; c.Top < page.Height/2 {
		t.Errorf("chart %s is on the first screen: the summary has not been found", c.Name)
	}
	page.CheckTablesShow(t)
	energy := page.Table(t, "energy-1-run")
	if len(energy.Rows) != 3 || energy.Rows[2][0].Text != "total" || energy.Rows[2][3].Value == nil || *energy.Rows[2][3].Value != 48 {
		t.Errorf("the page's energy table: %+v", energy.Rows)
	}
	for _, c := range doc.Charts() {
		for _, ext := range []string{".png", ".svg"} {
			if st, err := os.Stat(filepath.Join(dir, rundir.FiguresDir, c.Name+ext)); err != nil || st.Size() == 0 {
				t.Errorf("figure %s%s: %v", c.Name, ext, err)
			}
		}
	}
}

// TestEachWorkloadsHeadline: each workload's result.json is read through its own
// result type: its headline numbers, its status and the workload's name.
func TestEachWorkloadsHeadline(t *testing.T) {
	tpccRes := &tpcc.Result{RunResult: vuser.RunResult{Benchmark: "tpcc", Status: result.StatusOK, TPS: 40, QPS: 900}, NOPM: 1000, TPM: 2400}
	tpchRes := &tpch.Result{Tool: "tierbench", SF: 0.01, Metrics: &tpch.Metrics{QphHAtSize: 160.4, PowerAtSize: 212.9, ThroughputAtSize: 120.9},
		Validation: &tpch.Validation{Passed: false, Failures: []string{"q1 row 1"}}}
	filesRes := &postmark.Result{Benchmark: "files", Status: result.StatusInterrupted, Error: "interrupted", Rates: postmark.Rates{TransactionsPerS: 3453.72, ReadMBs: 16.9}}
	for _, tc := range []struct {
		res           any
		title, metric string
		value         float64
		status        string
	}{
		{tpccRes, "tierbench run: TPC-C", "NOPM", 1000, "status ok"},
		{tpchRes, "tierbench run: TPC-H", "QphH@Size", 160.4, "status failed (answer validation failed (1 mismatches))"},
		{filesRes, "tierbench run: Postmark-compatible file workload", "transaction rate", 3453.72, "status interrupted (interrupted)"},
		{fixtureResult(), "tierbench run: OLTP mix on sqlite 3.99.0 (embedded)", "TPS", 110, "status ok"},
	} {
		dir := t.TempDir()
		writeJSON(t, filepath.Join(dir, runreport.ResultFile), tc.res)
		doc := build(t, dir, runreport.Options{}).Doc
		if doc.Title != tc.title || !strings.Contains(doc.Subtitle, ", "+tc.status) {
			t.Errorf("%s: %q, %q; want %q and %q", tc.metric, doc.Title, doc.Subtitle, tc.title, tc.status)
		}
		if got := cell(t, tableNamed(t, doc, "headline"), tc.metric, "value"); got != tc.value {
			t.Errorf("%s: %v, want %v", tc.metric, got, tc.value)
		}
		// The summary comes first and shows the same number large, its unit unless the
		// title says it (QphH@Size).
		sum := doc.Sections[0]
		if sum.Title != "Summary" || len(sum.Blocks) == 0 || len(sum.Blocks[0].Highlights) == 0 {
			t.Fatalf("%s: the first section is %q, without highlights", tc.metric, sum.Title)
		}
		h := sum.Blocks[0].Highlights[0]
		if h.Title != tc.metric || h.Value != tc.value || (h.Unit == "") != (tc.metric == "QphH@Size") {
			t.Errorf("%s: the first highlight is %+v", tc.metric, h)
		}
	}
}

// TestEveryHeadlineMetric: each registered workload's headline metric has a title
// as its users write it, and a unit whose range package quantity knows, so that a
// report shows its name and keeps its intervals and axes within its range.
func TestEveryHeadlineMetric(t *testing.T) {
	for _, name := range workload.Names() {
		m, err := workload.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, mi := range m.Result.Headline {
			if mi.Title == "" || mi.Title == mi.Name || !quantity.Known(mi.Unit) {
				t.Errorf("%s: headline metric %s: title %q, unit %q (known: %v); want a title of its own and a known unit",
					name, mi.Name, mi.Title, mi.Unit, quantity.Known(mi.Unit))
			}
		}
	}
}

// TestReportOfRealResults: the report of each workload's real result file, as this
// tierbench writes it and as the one before the workloads had one name wrote it
// ("oltp-mix", "files", TPC-H without a benchmark member), names the workload by its
// title and shows its headline numbers and status, each with what it counts (the
// definition the file carries, where it has one).
func TestReportOfRealResults(t *testing.T) {
	for _, tc := range []struct{ file, title, metric, metricTitle string }{
		{"tpch.json", "TPC-H on sqlite 3.54.1 (embedded)", "qphh_at_size", "QphH@Size"},
		{"tpch-untagged.json", "TPC-H on sqlite 3.54.1 (embedded)", "qphh_at_size", "QphH@Size"},
		{"tpcc.json", "TPC-C on sqlite 3.54.1 (embedded)", "nopm", "NOPM"},
		{"oltp.json", "OLTP mix on sqlite 3.54.1 (embedded)", "tps", "TPS"},
		{"oltp-mix.json", "OLTP mix on sqlite 3.54.1 (embedded)", "tps", "TPS"},
		{"postmark.json", "Postmark-compatible file workload", "transactions_per_s", "transaction rate"},
		{"files.json", "Postmark-compatible file workload", "transactions_per_s", "transaction rate"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "resultfile", "testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			var raw map[string]any
			if err := json.Unmarshal(data, &raw); err != nil {
				t.Fatal(err)
			}
			want := raw[tc.metric]
			for _, in := range []string{"metrics", "rates"} {
				if sub, ok := raw[in].(map[string]any); ok && want == nil {
					want = sub[tc.metric]
				}
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, runreport.ResultFile), data, 0o644); err != nil {
				t.Fatal(err)
			}
			doc := build(t, dir, runreport.Options{}).Doc
			if doc.Title != "tierbench run: "+tc.title || !strings.Contains(doc.Subtitle, ", status ok") {
				t.Errorf("%q, %q; want the title %q and status ok", doc.Title, doc.Subtitle, tc.title)
			}
			head := tableNamed(t, doc, "headline")
			if got := cell(t, head, tc.metricTitle, "value"); got != want {
				t.Errorf("%s: %v, the file's %v", tc.metric, got, want)
			}
			defs, _ := raw["definitions"].(map[string]any)
			for _, row := range head.Rows {
				what := row[len(row)-1].Text
				if row[3].Text == tc.metric && row[0].Text != tc.metricTitle {
					t.Errorf("%s is titled %q, want %q", tc.metric, row[0].Text, tc.metricTitle)
				}
				def, _ := defs[row[3].Text].(string)
				if what == "" || def != "" && what != def {
					t.Errorf("%s counts %q; the file's definition is %q", row[0].Text, what, def)
				}
			}
		})
	}
}

// TestVerdictAppColumn: the verdicts table has an app column only when a level's
// time_pct has the application's gates: the fixture has none; with app 60 beside io
// 80 the row says 60, and the headline stays the last column.
func TestVerdictAppColumn(t *testing.T) {
	plain := tableNamed(t, build(t, writeFixture(t), runreport.Options{}).Doc, "verdicts")
	for _, c := range plain.Columns {
		if c.Heading() == "app (%)" {
			t.Fatalf("the fixture, without gates, has an app column: %+v", plain.Columns)
		}
	}
	dir := writeFixture(t)
	res := fixtureResult()
	res.Verdict.Levels[0].TimePct["app"] = 60
	writeJSON(t, filepath.Join(dir, runreport.ResultFile), res)
	v := tableNamed(t, build(t, dir, runreport.Options{}).Doc, "verdicts")
	if got := cell(t, v, "2 users", "app (%)"); got != 60 {
		t.Errorf("app: %v, want 60", got)
	}
	if got := cell(t, v, "2 users", "io (%)"); got != 80 {
		t.Errorf("io: %v, want 80", got)
	}
	if last := v.Columns[len(v.Columns)-1].Heading(); last != "headline" || len(v.Rows[0]) != len(v.Columns) {
		t.Errorf("last column %q, %d entries for %d columns", last, len(v.Rows[0]), len(v.Columns))
	}
}
