package lifecycle

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"tierbench/internal/metrics"
	"tierbench/internal/monitor"
	"tierbench/internal/result"
	"tierbench/internal/verdict"
	"tierbench/internal/workload"
)

// levelResult is a result with the sections that names one level's window for the
// verdict, as a run of virtual users does.
type levelResult struct {
	Started time.Time `json:"started"`
	Users   int       `json:"users"`
	result.Sections
}

func (r *levelResult) VerdictWindows() ([]verdict.Window, int) {
	return []verdict.Window{{Label: monitor.LevelLabel(r.Users), Facts: verdict.Facts{Users: r.Users, Throughput: 10}}}, 0
}

// TestSampledRun: a phase on SQLite with the settings' sampler: metrics.jsonl holds
// every sample with the energy recorder's watts, the level's window the workload
// marked is summarised and judged, the summary for people has the monitoring and
// verdict lines, and --metrics-addr serves the samples and the workload's intervals
// while the run goes and stops when it ends.
func TestSampledRun(t *testing.T) {
	out, tier := t.TempDir(), t.TempDir()
	s := settingsFor(t, engineOpts, "--out", out, "--data", tier, "--sample", "50ms", "--metrics-addr", "127.0.0.1:0", "--base-watts", "20")
	var stdout bytes.Buffer
	r, err := startFor(t, s, workload.Request{Results: []string{"result.json"}}, IO{Stdout: &stdout})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, ok := r.mon.(*sampler); !ok {
		t.Fatalf("monitor %T, want the settings' sampler", r.mon)
	}
	r.Mark(monitor.LevelLabel(2), true)
	marked := time.Now()
	// The mark asks the sampler for a sample, which it takes when it runs: on a loaded
	// host some milliseconds later. The window's commits are read at the mark itself,
	// between the sample before it and the mark's, as if they came at a steady rate in
	// between: a burst of statements right after the mark, before its sample, would be
	// shared out over that whole interval, most of it before the mark when the sample
	// before was taken long before the mark. The statements go after the mark's
	// sample, and the window ends samples after them, so that it counts all of them.
	sm := r.mon.(*sampler).mon
	waitUntil(t, func() bool { return sm.Latest().Time.After(marked) })
	db := r.Engine().DB()
	if _, err := db.Exec("CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, err := db.Exec("INSERT INTO t VALUES (?)", i); err != nil {
			t.Fatal(err)
		}
	}
	// The window spans a few of the sampler's ticks.
	first := sm.Latest().Time
	waitUntil(t, func() bool { return sm.Latest().Time.Sub(first) >= 150*time.Millisecond })
	r.Observer().Interval(metrics.IntervalRecord{Phase: "measure", Users: 2, TPS: 12.5})
	addr := "http://" + r.exp.Addr() + monitor.MetricsPath
	body := get(t, addr)
	for _, want := range []string{"tierbench_workload_tps 12.5", `tierbench_proc_cpu_s_total{who="tierbench"}`, `tierbench_energy_watts{component="base"} 20`} {
		if !strings.Contains(body, want) {
			t.Errorf("the exposition lacks %s:\n%s", want, body)
		}
	}
	r.Mark(monitor.LevelLabel(2), false)
	res := &levelResult{Started: time.Now().UTC(), Users: 2}
	if err := r.Finish(&workload.Report{Result: res, File: "result.json", Announce: true,
		Summary: func(w io.Writer) { io.WriteString(w, "summary\n") }}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(addr); err == nil {
		t.Error("--metrics-addr is still served after the run")
	}

	got, err := metrics.ReadJSONFile[levelResult](filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	mon := got.Monitoring
	if mon == nil || mon.File != monitor.JSONLinesFile || mon.Level(2) == nil || mon.Level(2).Samples < 2 {
		t.Fatalf("monitoring %+v: want the level's window sampled, in %s", mon, monitor.JSONLinesFile)
	}
	if c := mon.Level(2).Counters["engine.commits"]; c.Delta < 20 {
		t.Errorf("the window counted %v commits, want the 21 statements' at least 20", c.Delta)
	}
	v := got.Verdict
	if v == nil || len(v.Levels) != 1 || v.Window != "2 users" || v.Levels[0].Users != 2 || v.Primary == verdict.Unknown {
		t.Fatalf("verdict %+v: want the level judged", v)
	}
	samples, torn, err := monitor.ReadSamples(filepath.Join(out, monitor.JSONLinesFile))
	if err != nil || torn != nil || len(samples) != mon.Samples {
		t.Fatalf("metrics.jsonl: %d samples (%v), the summary counts %d", len(samples), err, mon.Samples)
	}
	for _, smp := range samples {
		if w := smp.Values["energy.base.watts"]; w != 20 {
			t.Errorf("sample at %s: energy.base.watts %v, want the 20 of --base-watts", smp.Time, w)
		}
	}
	if _, err := os.Stat(filepath.Join(out, monitor.CSVFile)); err != nil {
		t.Error(err)
	}
	// The energy section's run window is the monitor's: its first sample to its last.
	if en := got.Energy; en == nil || en.Window("2 users") == nil || !en.Window("run").Start.Equal(samples[0].Time) {
		t.Errorf("energy %+v: want the level's window and the run from the monitor's first sample %s", en, samples[0].Time)
	}
	text := stdout.String()
	for _, want := range []string{"summary\n\nmonitoring, 2 users: ", "\n  host: CPU ", "\nverdict, 2 users: ", "\nresult: "} {
		if !strings.Contains(text, want) {
			t.Errorf("stdout lacks %q:\n%s", want, text)
		}
	}
}

// TestSampleSettings: --sample off samples nothing and writes no files, but an earlier
// run's series are still set aside (they would be read with the new result); a phase
// other than run names its files after itself, and every phase's files join its
// results, so that an earlier command's are set aside.
func TestSampleSettings(t *testing.T) {
	out := t.TempDir()
	off, err := settingsFor(t, engineOpts, "--out", out, "--sample", "off").Config(workload.Request{Results: []string{"result.json"}})
	if err != nil || off.Sample != 0 || off.MetricsPrefix != "" || !slices.Equal(off.Request.Results, []string{"result.json", monitor.JSONLinesFile, monitor.CSVFile}) {
		t.Errorf("--sample off: %+v, %v", off, err)
	}
	load := engineOpts
	load.Phase = workload.Load
	req := workload.Request{Results: make([]string, 1, 4)}
	req.Results[0] = "load.json"
	cfg, err := settingsFor(t, load, "--out", out).Config(req)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"load.json", "load-metrics.jsonl", "load-metrics.csv"}; cfg.Sample != monitor.DefaultInterval || cfg.MetricsPrefix != "load-" || !slices.Equal(cfg.Request.Results, want) {
		t.Errorf("a load: sample %s, prefix %q, results %v; want %s, load- and %v", cfg.Sample, cfg.MetricsPrefix, cfg.Request.Results, monitor.DefaultInterval, want)
	}
	if len(req.Results[:cap(req.Results)][1]) != 0 {
		t.Error("Config wrote into the caller's results")
	}
	run, err := settingsFor(t, Options{Sections: true, Phase: workload.Run}, "--out", out, "--dir", out).Config(workload.Request{})
	if err != nil || run.MetricsPrefix != "" || !slices.Equal(run.Request.Results, []string{"metrics.jsonl", "metrics.csv"}) {
		t.Errorf("a run: %+v, %v", run, err)
	}
}

func waitUntil(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("waited 30 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
