package monitor

import (
	"context"
	"encoding/csv"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tierbench/internal/engine"
	_ "tierbench/internal/engine/sqlite"
	"tierbench/internal/metrics"
)

// TestOnThisHost samples this machine for real, with an embedded engine doing known
// work inside a marked window, and serves the samples to Prometheus: the values are
// sane, every series is in the catalogue, the window counts the engine's commits,
// metrics.jsonl and metrics.csv hold every sample, and the exposition has the host's,
// the engine's and the workload's figures.
func TestOnThisHost(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Name: "sqlite", Dir: filepath.Join(dir, "db")})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.DB().ExecContext(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)"); err != nil {
		t.Fatal(err)
	}
	host, err := NewHost("")
	if err != nil {
		t.Fatal(err)
	}
	procs, err := NewProcesses("", Process{Who: "tierbench", PID: os.Getpid()}, Process{Who: "server", PID: os.Getpid(), Tree: true})
	if err != nil {
		t.Fatal(err)
	}
	storage, err := NewStorage("", "", []Directory{{"data", filepath.Join(dir, "db")}})
	if err != nil {
		t.Fatal(err)
	}
	eng, ok, err := NewEngine(ctx, e)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	m, err := New(Config{Interval: 50 * time.Millisecond, Dir: dir, Sources: []Source{host, procs, storage, eng}})
	if err != nil {
		t.Fatal(err)
	}
	exp, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Close()
	exp.Watch(m)
	m.Start()

	// The window's counters are read at its marks by interpolation between the samples
	// around each, as if the engine committed at a steady rate between them; a burst
	// of commits between those samples would be shared out by time. So that the window
	// counts the inserts exactly, none fall between the samples around a mark: they
	// start after the start's sample, and the end waits for a sample after them.
	m.BeginWindow("work", 0, time.Now())
	waitFor(t, func() bool { based, _ := windowState(m, "work"); return based })
	const n = 40
	for i := 0; i < n; i++ {
		if _, err := e.DB().ExecContext(ctx, "INSERT INTO t VALUES (?, ?)", i, i); err != nil {
			t.Fatal(err)
		}
	}
	inserted := time.Now()
	waitFor(t, func() bool { return m.Latest().Time.After(inserted) })
	m.EndWindow("work", time.Now())
	waitFor(t, func() bool { _, done := windowState(m, "work"); return done })
	// A sample within a clock tick (10 ms) of the one before has no CPU shares: the
	// exposition shows the latest, so wait for one that has them.
	waitFor(t, func() bool { _, ok := m.Latest().Values["host.cpu.all.busy_pct"]; return ok })
	exp.Interval(metrics.IntervalRecord{Phase: "measure", Users: 3, TPS: 12.5,
		Ops: map[string]metrics.OpReport{"insert": {Count: 125, PerSecond: 12.5}}})
	body := scrape(t, "http://"+exp.Addr()+MetricsPath)

	sum, err := m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	w := sum.Windows[0]
	if c := w.Counters["engine.commits"]; c.Delta != n {
		t.Errorf("the window counted %v commits, want %d", c.Delta, n)
	}
	run := sum.Run
	for name, r := range map[string][2]float64{
		"host.cpu.all.busy_pct": {0, 100}, "host.cpu.all.idle_pct": {0, 100}, "host.mem.total_mib": {1, 1 << 30},
		"host.cpus": {1, 4096}, "proc.tierbench.rss_mib": {1, 1 << 20}, "proc.tierbench.cpu_cores": {0, 4096},
		"proc.server.processes": {1, 1 << 20}, "monitor.sample_ms": {0, 60000},
		"proc.tierbench.cpu_wait_cores": {0, 4096}, "proc.tierbench.blocked_threads": {0, 1 << 20},
	} {
		st, ok := run.Series[name]
		if !ok || st.Min < r[0] || st.Max > r[1] {
			t.Errorf("%s: %+v (sampled: %v), want within %v", name, st, ok, r)
		}
	}
	if len(sum.Storage) != 1 || (len(sum.Storage[0].Disks) == 0) == (sum.Storage[0].Unavailable == "") {
		t.Errorf("storage %+v: want the data directory's disks, or why it has none", sum.Storage)
	}
	if len(sum.Storage[0].Disks) > 0 {
		disk := sum.Storage[0].Disks[0]
		if _, ok := run.Counters["disk."+disk+".busy_s"]; !ok {
			t.Errorf("disk %s under the data directory was not read", disk)
		}
	}
	samples, torn, err := ReadSamples(filepath.Join(dir, JSONLinesFile))
	if err != nil || torn != nil {
		t.Fatal(err, torn)
	}
	if len(samples) != sum.Samples || sum.Samples < 4 {
		t.Errorf("metrics.jsonl has %d samples, the summary %d", len(samples), sum.Samples)
	}
	for _, s := range samples {
		for _, m := range []map[string]float64{s.Values, s.Counters} {
			for name := range m {
				if _, _, ok := Find(sum.Series, name); !ok {
					t.Errorf("series %s is not in the catalogue", name)
				}
			}
		}
		if len(s.Errors) > 0 {
			t.Errorf("sample at %s: errors %v", s.Time, s.Errors)
		}
	}
	f, err := os.Open(filepath.Join(dir, CSVFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != sum.Samples+1 || rows[0][0] != "time" || len(rows[0]) < 20 {
		t.Errorf("metrics.csv: %d rows, header %v", len(rows), rows[0])
	}

	for _, want := range []string{`tierbench_host_cpu_busy_pct{cpu="all"}`, "tierbench_host_cpu_all_user_s_total ",
		`tierbench_engine_commits_total `, `tierbench_proc_cpu_s_total{who="tierbench"}`, "tierbench_workload_tps 12.5",
		`tierbench_workload_transactions_total{op="insert"} 125`, "# HELP tierbench_host_mem_available_mib"} {
		if !strings.Contains(body, want) {
			t.Errorf("the exposition lacks %s", want)
		}
	}
	if _, err := Listen(exp.Addr()); err == nil || !strings.Contains(err.Error(), "--metrics-addr") || !strings.Contains(err.Error(), "already in use") {
		t.Errorf("an address in use: %v", err)
	}
	if _, err := Listen("9187"); err == nil || !strings.Contains(err.Error(), "HOST:PORT") {
		t.Errorf("an address without a port: %v", err)
	}
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v\n%s", url, resp.Status, err, body)
	}
	return string(body)
}
