package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tierbench/internal/metrics"
	"tierbench/internal/report"
	"tierbench/internal/report/quantity"
	"tierbench/internal/report/reporttest"
	"tierbench/internal/report/stats"
	"tierbench/internal/rundir"
	"tierbench/internal/study"
)

// tinyStudy is two mixes x two levels of users on SQLite, two repetitions of one
// second each: the smallest study that has a line chart, a baseline per group and
// shards worth merging.
const tinyStudy = `name: tiny
description: point-select and bbs on SQLite at 1 and 2 users
workload: oltp
params: {scale: 0.001, ramp: 0s, duration: 1s, interval: 1s}
factors:
  mix: [point-select, bbs]
  users: [1, 2]
repetitions: 2
order: shuffled
seed: 3
baseline: {mix: point-select}
timeout: 2m
`

// asTierbenchChild runs each phase of a study's runs in the test binary acting as
// tierbench (TestMain).
func asTierbenchChild(t *testing.T) {
	t.Helper()
	studyChild = func(args []string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), asTierbenchEnv+"=1")
		return cmd
	}
	t.Cleanup(func() { studyChild = nil })
}

// runStudyCLI runs the command line in-process with ctx.
func runStudyCLI(ctx context.Context, args ...string) (string, error) {
	cmd := newRootCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	return out.String(), err
}

// TestStudyEndToEnd runs a tiny study on SQLite in two shards, the first stopped
// (Ctrl-C) in the middle of its runs and resumed, merges the shards into one
// report, and checks the report's numbers, in summary.json, cells.csv and the page
// as headless Chromium shows it, against the runs' own result.json files.
func TestStudyEndToEnd(t *testing.T) {
	asTierbenchChild(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(file, []byte(tinyStudy), 0o644); err != nil {
		t.Fatal(err)
	}
	a, b, merged := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "report")

	out, err := runStudyCLI(context.Background(), "study", "run", file, "--out", a, "--shard", "1/2", "--dry-run")
	if err != nil || !strings.Contains(out, "4 x 2 repetitions = 8 runs, shuffled (seed 3)") ||
		!strings.Contains(out, "shard      1/2, blocked by host: 4 of the 8 runs, tasks 0-3 (repetition 1 of every cell)") || !strings.Contains(out, "tierbench oltp run --mix=bbs") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	if _, err := os.Stat(a); err == nil {
		t.Errorf("--dry-run created %s", a)
	}

	// Shard 1/2, stopped once its first run has finished.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) {
			if done, _ := filepath.Glob(filepath.Join(a, study.CellsDir, "*", "*", study.RunFile)); len(done) > 0 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	out, err = runStudyCLI(ctx, "study", "run", file, "--out", a, "--shard", "1/2")
	if err == nil || !strings.Contains(err.Error(), "interrupted") || !strings.Contains(err.Error(), "run the same command again to resume") {
		t.Fatalf("interrupted shard: %v\n%s", err, out)
	}
	out, err = runStudyCLI(context.Background(), "study", "run", file, "--out", a, "--shard", "1/2")
	if err != nil || !strings.Contains(out, "of 4 runs finished") {
		t.Fatalf("resumed shard 1/2: %v\n%s", err, out)
	}
	if out, err = runStudyCLI(context.Background(), "study", "run", file, "--out", b, "--shard", "2/2"); err != nil {
		t.Fatalf("shard 2/2: %v\n%s", err, out)
	}
	if out, err = runStudyCLI(context.Background(), "study", "report", a, b, "--out", merged); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}

	// A directory of another study is refused, and nothing is written.
	other := filepath.Join(dir, "other")
	rec, err := study.ReadRecord(a)
	if err != nil {
		t.Fatal(err)
	}
	rec.Name, rec.Fingerprint = "another", "0123456789abcdef"
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := metrics.WriteJSONFile(filepath.Join(other, study.RecordFile), rec); err != nil {
		t.Fatal(err)
	}
	if _, err := runStudyCLI(context.Background(), "study", "report", a, other, "--out", other); err == nil ||
		!strings.Contains(err.Error(), "give the directories of one study") {
		t.Errorf("report over two studies: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, rundir.ReportFile)); err == nil {
		t.Errorf("a refused report wrote %s", rundir.ReportFile)
	}

	// Every number against the runs' result.json: tps of each run, by cell.
	tps := map[string][]float64{}
	for _, d := range []string{a, b} {
		paths, _ := filepath.Glob(filepath.Join(d, study.CellsDir, "*", "rep-*", "result.json"))
		for _, p := range paths {
			r, err := metrics.ReadJSONFile[struct {
				TPS float64 `json:"tps"`
			}](p)
			if err != nil || r == nil {
				t.Fatalf("%s: %v", p, err)
			}
			cell := filepath.Base(filepath.Dir(filepath.Dir(p)))
			tps[cell] = append(tps[cell], r.TPS)
		}
	}
	if len(tps) != 4 {
		t.Fatalf("result.json files of %d cells, want 4: %v", len(tps), tps)
	}
	sum, err := metrics.ReadJSONFile[report.Summary](filepath.Join(merged, study.SummaryFile))
	if err != nil || sum == nil || len(sum.Cells) != 4 {
		t.Fatalf("summary.json: %v %+v", err, sum)
	}
	for _, c := range sum.Cells {
		want := stats.Summarise(tps[c.ID], quantity.NonNegative)
		got := c.Metrics["tps"].Stats
		if got.N != 2 || !near(got.Mean, want.Mean) || !near(got.SD, want.SD) {
			t.Errorf("summary.json cell %s: tps %+v, want %+v from its result.json files", c.ID, got, want)
		}
		if strings.HasPrefix(c.ID, "mix=bbs") && c.Metrics["tps"].VsBaseline == nil {
			t.Errorf("cell %s has no comparison with point-select", c.ID)
		}
	}
	rows := readCSV(t, filepath.Join(merged, study.CellsCSVFile))
	if len(rows) != 9 || rows[0][0] != "cell" {
		t.Errorf("cells.csv: %d rows, want a heading and 8 runs: %q", len(rows), rows)
	}

	// A directory another tierbench holds (a study running there) gets no report.
	lock, err := rundir.Acquire(merged, "tierbench study run tiny.yaml --out "+merged)
	if err != nil {
		t.Fatal(err)
	}
	before := readOrEmpty(filepath.Join(merged, study.SummaryFile))
	_, err = runStudyCLI(context.Background(), "study", "report", a, b, "--out", merged)
	var busy *rundir.BusyError
	if !errors.As(err, &busy) {
		t.Errorf("report into a directory in use: %v", err)
	}
	if !bytes.Equal(readOrEmpty(filepath.Join(merged, study.SummaryFile)), before) {
		t.Error("the refused report changed summary.json")
	}
	lock.Release()

	reporttest.ChromiumPath(t)
	res, err := study.Load(a, b)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := study.BuildReport(res)
	if err != nil {
		t.Fatal(err)
	}
	page := reporttest.Load(t, filepath.Join(merged, rundir.ReportFile))
	page.CheckClean(t)
	page.CheckCharts(t, rep.Doc.Charts())
	// Each run's verdict and the host's CPU over its headline window, from its
	// result.json.
	if v := page.Table(t, "verdicts"); len(v.Rows) != 8 || v.Rows[0][3].Text == "" {
		t.Errorf("the verdicts table: %+v", v.Rows)
	}
	page.Table(t, "host_cpu_busy_pct")
	tbl := page.Table(t, "tps")
	if len(tbl.Rows) != 4 {
		t.Fatalf("the tps table has %d rows, want 4", len(tbl.Rows))
	}
	for _, row := range tbl.Rows {
		id := "mix=" + row[0].Text + ",users=" + row[1].Text
		mean := row[3]
		if mean.Value == nil || !near(*mean.Value, stats.Summarise(tps[id], quantity.NonNegative).Mean) {
			t.Errorf("page: cell %s shows mean %q, want %v", id, mean.Text, stats.Summarise(tps[id], quantity.NonNegative).Mean)
		}
	}
}

func near(a, b float64) bool { return a == b || (a-b)/b < 1e-12 && (b-a)/b < 1e-12 }

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// descendant finds a process below this one whose command line contains arg (the
// emulator's server, started by a study's child), or 0.
func descendant(arg string) int {
	parent := map[int]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after its ')'.
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if len(fields) > 1 {
			parent[pid], _ = strconv.Atoi(fields[1])
		}
	}
	for pid := range parent {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if !strings.Contains(strings.ReplaceAll(string(cmdline), "\x00", " "), arg) {
			continue
		}
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == os.Getpid() {
				return pid
			}
		}
	}
	return 0
}

// TestStudyCauseOfADeadEmulator: when the emulator's server dies during a cell's run
// (kill -9), the cause the study records for the run is the emulator's death, first,
// not the transactions that failed because of it.
func TestStudyCauseOfADeadEmulator(t *testing.T) {
	needFUSE(t)
	asTierbenchChild(t)
	dir := t.TempDir()
	file, out := filepath.Join(dir, "dead.yaml"), filepath.Join(dir, "out")
	// slowSSD: a device no loaded host refuses as too fast for its FUSE round trip
	src := "name: dead\nworkload: oltp\nparams: {mix: bbs, scale: 0.001, ramp: 0s, duration: 8s, emulator: fuse, data: '" + slowSSD + "'}\nfactors:\n  users: [2]\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	killed := make(chan int, 1)
	go func() {
		defer close(killed)
		log := filepath.Join(study.RunDir(out, "users=2", 1), study.StdoutFile)
		deadline := time.Now().Add(3 * time.Minute)
		for time.Now().Before(deadline) {
			if b, _ := os.ReadFile(log); bytes.Contains(b, []byte("$ tierbench oltp run")) {
				if pid := descendant("device serve"); pid > 0 {
					time.Sleep(time.Second) // transactions in flight on its mount
					if syscall.Kill(pid, syscall.SIGKILL) == nil {
						killed <- pid
					}
					return
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	_, err := runStudyCLI(context.Background(), "study", "run", file, "--out", out)
	pid, ok := <-killed
	if !ok {
		t.Fatalf("the run's emulator was never found to kill (%v)", err)
	}
	if err == nil {
		t.Error("a study whose emulator died succeeded")
	}
	r, rerr := metrics.ReadJSONFile[study.RunRecord](filepath.Join(study.RunDir(out, "users=2", 1), study.RunFile))
	if rerr != nil || r == nil {
		t.Fatalf("cell.json: %v", rerr)
	}
	want := fmt.Sprintf("run: the emulator's server (pid %d) died during the run (killed by SIGKILL): its devices failed every request from then on", pid)
	if r.Status != "failed" || !strings.HasPrefix(r.Error, want) {
		t.Errorf("recorded %s %q, want it to begin %q", r.Status, r.Error, want)
	}
}
