package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/report"
	"tierbench/internal/rundir"
	"tierbench/internal/runreport"
	"tierbench/internal/runreport/runreporttest"
)

// TestReportOfARun: a real `oltp run` of two levels on SQLite, sampled every 100 ms,
// then `tierbench report OUT`: it prints the page's path; every chart's points are
// metrics.jsonl's and intervals.jsonl's values (runreporttest, reading the files on
// its own); the headline, the windows' CPU, the verdicts and the energy are
// result.json's. A line of metrics.jsonl cut short is then an error naming it.
func TestReportOfARun(t *testing.T) {
	out := t.TempDir()
	loadPointSelect(t, out, "")
	if stdout, err := runCLI(t, "oltp", "run", "--mix", "point-select", "--users", "1,2", "--ramp", "0s", "--duration", "2s",
		"--interval", "1s", "--sample", "100ms", "--out", out); err != nil {
		t.Fatalf("oltp run: %v\n%s", err, stdout)
	}
	stdout, err := runCLI(t, "report", out)
	page := filepath.Join(out, rundir.ReportFile)
	if err != nil || stdout != "report: "+page+"\n" {
		t.Fatalf("report: %v, printed %q", err, stdout)
	}
	if st, err := os.Stat(page); err != nil || st.Size() == 0 {
		t.Fatalf("%s: %v", page, err)
	}

	rep, err := runreport.Build(out, runreport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	runreporttest.CheckCharts(t, out, rep)
	charts := map[string]bool{}
	for _, c := range rep.Doc.Charts() {
		charts[c.Name] = true
	}
	for _, name := range []string{"throughput", "latency", "host-cpu", "host-memory", "engine-hit-ratio", "process-cpu", "process-rss", "energy-watts"} {
		if !charts[name] {
			t.Errorf("the report of a monitored SQLite run has no chart %s (it has %v)", name, charts)
		}
	}

	var raw struct {
		TPS        float64 `json:"tps"`
		QPS        float64 `json:"qps"`
		Monitoring struct {
			Run struct {
				Counters map[string]struct{ Delta float64 } `json:"counters"`
			} `json:"run"`
		} `json:"monitoring"`
		Verdict struct {
			Levels []struct {
				Window   string `json:"window"`
				Primary  string `json:"primary"`
				Headline string `json:"headline"`
			} `json:"levels"`
		} `json:"verdict"`
		Energy struct {
			Windows []struct {
				Label      string `json:"label"`
				Components []struct {
					Name   string  `json:"name"`
					Joules float64 `json:"joules"`
					AvgW   float64 `json:"avg_w"`
				} `json:"components"`
			} `json:"windows"`
		} `json:"energy"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(out, "result.json")), &raw); err != nil {
		t.Fatal(err)
	}
	tables := map[string]*report.Table{}
	for _, tb := range rep.Doc.Tables() {
		tables[tb.Name] = tb
	}
	value := func(table, row, column string) float64 {
		t.Helper()
		tb := tables[table]
		if tb == nil {
			t.Fatalf("no table %s", table)
		}
		for _, r := range tb.Rows {
			if r[0].Text != row {
				continue
			}
			for i, c := range tb.Columns {
				if c.Heading() == column && r[i].Value != nil {
					return *r[i].Value
				}
			}
		}
		t.Fatalf("table %s has no number in row %s, column %s", table, row, column)
		return 0
	}
	if got := value("headline", "TPS", "value"); got != raw.TPS {
		t.Errorf("headline tps %v, result.json %v", got, raw.TPS)
	}
	if got := value("headline", "QPS", "value"); got != raw.QPS {
		t.Errorf("headline qps %v, result.json %v", got, raw.QPS)
	}
	c := raw.Monitoring.Run.Counters
	if want := 100 * c["host.cpu.all.busy_s"].Delta / c["host.cpu.all.total_s"].Delta; value("windows", "CPU busy (%)", "run") != want {
		t.Errorf("the run's CPU busy %v, result.json's counters say %v", value("windows", "CPU busy (%)", "run"), want)
	}
	if len(raw.Verdict.Levels) != 2 || len(tables["verdicts"].Rows) != 2 {
		t.Fatalf("verdicts: result.json has %d, the report %d", len(raw.Verdict.Levels), len(tables["verdicts"].Rows))
	}
	for i, l := range raw.Verdict.Levels {
		row := tables["verdicts"].Rows[i]
		if row[0].Text != l.Window || row[len(row)-1].Text != l.Headline {
			t.Errorf("verdict %d: %s %q, result.json %s %q", i, row[0].Text, row[len(row)-1].Text, l.Window, l.Headline)
		}
	}
	if len(raw.Energy.Windows) == 0 {
		t.Error("result.json has no energy windows")
	}
	for i, w := range raw.Energy.Windows {
		for _, comp := range w.Components {
			name := fmt.Sprintf("energy-%d-%s", i+1, strings.ReplaceAll(w.Label, " ", "-"))
			if got := value(name, comp.Name, "energy (J)"); got != comp.Joules {
				t.Errorf("%s, %s: %v J, result.json %v", name, comp.Name, got, comp.Joules)
			}
			if got := value(name, comp.Name, "average (W)"); got != comp.AvgW {
				t.Errorf("%s, %s: %v W, result.json %v", name, comp.Name, got, comp.AvgW)
			}
		}
	}

	metrics := filepath.Join(out, "metrics.jsonl")
	data := mustRead(t, metrics)
	n := bytes.Count(data, []byte("\n"))
	// A last line cut short (kill -9 while the monitor wrote): the report is made of
	// the complete lines, and says so on the terminal and in the page.
	if err := os.WriteFile(metrics, append(data, `{"time": "2026`...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := runCLIStderr(t, "report", out)
	if err != nil || !strings.Contains(stderr, fmt.Sprintf("note: %s ends in a torn line %d (14 bytes", metrics, n+1)) ||
		!bytes.Contains(mustRead(t, page), []byte(fmt.Sprintf("its %d complete lines are used", n))) {
		t.Errorf("report with line %d of metrics.jsonl cut short: %v, stderr %q", n+1, err, stderr)
	}
	// A line cut short before the end is damage, not a kill: an error naming it.
	if err := os.WriteFile(metrics, append(append(data[:len(data):len(data)], `{"time": "2026`+"\n"...), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "report", out); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%s, line %d", metrics, n+1)) {
		t.Errorf("report with line %d of metrics.jsonl cut short: %v", n+1, err)
	}
	if err := os.WriteFile(metrics, data, 0o644); err != nil {
		t.Fatal(err)
	}

	// A new run in the directory, even one that samples nothing, sets the earlier
	// page and series aside with the result they belong to.
	before := mustRead(t, page)
	_, stderr, err = runCLIStderr(t, "oltp", "run", "--mix", "point-select", "--ramp", "0s", "--duration", "1s",
		"--interval", "1s", "--sample", "off", "--out", out)
	if err != nil {
		t.Fatalf("a second run: %v\n%s", err, stderr)
	}
	aside := filepath.Join(out, "earlier", "1")
	if !bytes.Equal(readOrEmpty(filepath.Join(aside, rundir.ReportFile)), before) {
		t.Errorf("the earlier report is not kept whole in %s", aside)
	}
	for _, name := range []string{rundir.ReportFile, rundir.FiguresDir, "metrics.jsonl", "metrics.csv"} {
		if _, err := os.Stat(filepath.Join(out, name)); !os.IsNotExist(err) {
			t.Errorf("%s is left beside the new result (%v)", name, err)
		}
		if _, err := os.Stat(filepath.Join(aside, name)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(stderr, "metrics.jsonl, metrics.csv, report.html and figures are in "+aside) {
		t.Errorf("stderr does not name the report set aside: %q", stderr)
	}
}

// TestReportBadInput: a directory without result.json is named in the error; a
// directory a run holds is refused, naming the run.
func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	_, err := runCLI(t, "report", dir)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "result.json")+": no such file") {
		t.Errorf("report of an empty directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, rundir.ReportFile)); err == nil {
		t.Errorf("report of an empty directory wrote a page")
	}
	if _, err := runCLI(t, "report"); err == nil {
		t.Errorf("report without a directory: no error")
	}

	// A run going on in the directory holds its lock: the report waits for no one.
	if err := os.WriteFile(filepath.Join(dir, "result.json"), []byte(`{"benchmark": "oltp-mix", "status": "ok"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	lock, err := rundir.Acquire(dir, "tierbench oltp run --out "+dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = runCLI(t, "report", dir)
	var busy *rundir.BusyError
	if !errors.As(err, &busy) || !strings.Contains(err.Error(), "tierbench oltp run --out "+dir) {
		t.Errorf("report of a directory in use: %v", err)
	}
	lock.Release()
	if _, err := runCLI(t, "report", dir); err != nil {
		t.Errorf("report of a minimal result once the run is gone: %v", err)
	}

	// A study's directory gets a study's report, never a run's over it.
	study := t.TempDir()
	for _, f := range []string{"result.json", rundir.StudyFile} {
		if err := os.WriteFile(filepath.Join(study, f), []byte(`{"benchmark": "oltp-mix", "status": "ok"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := runCLI(t, "report", study); err == nil || !strings.Contains(err.Error(), "holds a study (study.json): its report is `tierbench study report "+study+"`") {
		t.Errorf("report of a study's directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(study, rundir.ReportFile)); err == nil {
		t.Error("a run's report was written into a study's directory")
	}
}
