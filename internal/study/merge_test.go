package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tierbench/internal/host"
	"tierbench/internal/metrics"
	"tierbench/internal/result"
	"tierbench/internal/rundir"
)

// TestMergeChecks: a merge names the tasks not run (and a report without --partial
// then exits 75, the report written), refuses a directory given twice, shards of
// different splits and a cell.json of another format, and says which of two
// records of one run it keeps and why.
func TestMergeChecks(t *testing.T) {
	p := mustExpand(t, fakeStudy, "")
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []struct {
		out         string
		first, last int
	}{{a, 0, 3}, {b, 4, 7}} {
		if _, err := runTask(context.Background(), taskRunner(p, d.out, d.first, d.last)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Load(a, b)
	if err != nil || len(res.Missing) != 0 || len(res.Runs) != 8 {
		t.Fatalf("both halves: %v, %d runs, missing %v", err, len(res.Runs), res.Missing)
	}

	// Half the tasks: a report, and an error naming what is missing.
	out := Output{Stdout: io.Discard, Stderr: io.Discard}
	err = writeReportExpecting([]string{a}, a, out, everyTask)
	var missing *MissingTasksError
	if !errors.As(err, &missing) || code(err) != ExitRetry ||
		!strings.HasPrefix(err.Error(), "4 of the 8 tasks have not run (task 4 (users=1,think=0s rep 2), task 5 (users=1,think=10ms rep 2), task 6 (users=2,think=0s rep 2) and 1 more)") {
		t.Errorf("report of half the tasks: %v", err)
	}
	page, _ := os.ReadFile(filepath.Join(a, rundir.ReportFile))
	if !strings.Contains(string(page), "4 of the 8 tasks have not run: task 4 (users=1,think=0s rep 2), task 5 (users=1,think=10ms rep 2), task 6 (users=2,think=0s rep 2), task 7 (users=2,think=10ms rep 2)") {
		t.Error("the report does not name the tasks not run")
	}
	if err := writeReportExpecting([]string{a}, a, out, nil); err != nil {
		t.Errorf("--partial: %v", err)
	}

	if _, err := Load(a, b, a+"/"); err == nil || err.Error() != a+"/ is given twice (as "+a+" and "+a+"/): give each directory once" {
		t.Errorf("a directory given twice: %v", err)
	}

	// Task 0 again in another directory, later: the first is kept, and the note says
	// why. Task 1 failed in a third: the run that finished ok is kept.
	c, d := filepath.Join(dir, "c"), filepath.Join(dir, "d")
	if _, err := runTask(context.Background(), taskRunner(p, c, 0, 0)); err != nil {
		t.Fatal(err)
	}
	task1 := p.Tasks().List[1]
	runTask(context.Background(), taskRunner(p, d, 1, 1, fakeFailEnv+"="+task1.Cell.ID))
	res, err = Load(d, a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	first := readRun(t, a, p.Tasks().List[0].Cell.ID, 1)
	wantNote := "repetition 1 of cell users=1,think=0s was run in two directories: the report uses " + RunDir(a, "users=1,think=0s", 1) +
		", not " + RunDir(c, "users=1,think=0s", 1) + ": it finished first (" + first.Finished.Format("2006-01-02 15:04:05Z")
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, wantNote) }) {
		t.Errorf("notes %q\nwant one starting %q", res.Notes, wantNote)
	}
	if r := res.Runs[runKey{task1.Cell.ID, 1}]; r.Status != result.StatusOK || r.Dir != RunDir(a, task1.Cell.ID, 1) {
		t.Errorf("task 1: the report uses %s (%s), want the run that finished ok", r.Dir, r.Status)
	}
	if !slices.Contains(res.Notes, "repetition 1 of cell users=1,think=10ms was run in two directories: the report uses "+RunDir(a, task1.Cell.ID, 1)+", not "+RunDir(d, task1.Cell.ID, 1)+": it finished ok, the other failed") {
		t.Errorf("notes %q: want the failed duplicate named", res.Notes)
	}

	// Shards of different splits.
	s1, s2 := filepath.Join(dir, "s1"), filepath.Join(dir, "s2")
	for _, sh := range []struct {
		dir string
		sh  Shard
	}{{s1, Shard{1, 2, ByHost}}, {s2, Shard{2, 3, ByHost}}} {
		os.MkdirAll(sh.dir, 0o755)
		if err := metrics.WriteJSONFile(filepath.Join(sh.dir, RecordFile), p.Record(sh.sh)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Load(s1, s2); err == nil || err.Error() != s1+" ran as shard 1/2 (blocked by host) and "+s2+" as shard 2/3 (blocked by host): shards of different splits overlap or leave runs out; give the shards of one split (one N, one --blocking), or report each directory on its own" {
		t.Errorf("shards 1/2 and 2/3: %v", err)
	}

	// Two studies: a flag wrong, not a moment's failure (64, do not retry).
	other := mustExpand(t, strings.Replace(fakeStudy, "name: fake", "name: other", 1), "")
	o := filepath.Join(dir, "other")
	os.MkdirAll(o, 0o755)
	if err := metrics.WriteJSONFile(filepath.Join(o, RecordFile), other.Record(All)); err != nil {
		t.Fatal(err)
	}
	if _, err = Load(a, o); code(err) != ExitUsage || !strings.HasPrefix(err.Error(), a+" holds study fake (") ||
		!strings.Contains(err.Error(), o+" holds study other (") {
		t.Errorf("a merge over two studies: %v (exit %d)", err, code(err))
	}

	// A cell.json of a format this tierbench does not read.
	path := filepath.Join(RunDir(b, p.Tasks().List[4].Cell.ID, 2), RunFile)
	rec := readRun(t, b, p.Tasks().List[4].Cell.ID, 2)
	rec.Format, rec.Host = 2, &host.Info{Tierbench: host.Build{Version: "v9.0.0"}}
	metrics.WriteJSONFile(path, rec)
	_, err = Load(a, b)
	var format *FormatError
	if !errors.As(err, &format) || code(err) != ExitData || !strings.HasPrefix(err.Error(), path+" was written by tierbench v9.0.0 in format 2") {
		t.Errorf("a cell.json of format 2: %v", err)
	}
}

// TestHostsReport: repetition 1 on one host, repetition 2 on another whose runs are
// 10% faster. The report fits host as a blocking factor: host b's effect against
// the average host is exp(d/2) - 1, d the mean over the cells of log(b's value /
// a's value); each comparison is made within both hosts. A study whose cell ran on
// one host and its baseline on another is warned of.
func TestHostsReport(t *testing.T) {
	p := mustExpand(t, fakeStudy, "")
	out := filepath.Join(t.TempDir(), "out")
	t.Setenv(host.HostnameEnv, "node-a")
	if _, err := runTask(context.Background(), taskRunner(p, out, 0, 3)); err != nil {
		t.Fatal(err)
	}
	t.Setenv(host.HostnameEnv, "node-b")
	if _, err := runTask(context.Background(), taskRunner(p, out, 4, 7, fakeScaleEnv+"=1.1")); err != nil {
		t.Fatal(err)
	}
	rep := loadReport(t, out)
	hs := rep.Hosts
	if len(hs.Hosts) != 2 || hs.Hosts[0].Name != "node-a" || hs.Hosts[0].Runs != 4 || hs.Hosts[0].Cells != 4 || hs.Hosts[1].Name != "node-b" {
		t.Fatalf("hosts %+v", hs.Hosts)
	}
	// fakeTPS: 100 users + 7.25 rep; the two cells of each level of users measure
	// the same.
	d := (math.Log(1.1*fakeTPS(1, 2)/fakeTPS(1, 1)) + math.Log(1.1*fakeTPS(2, 2)/fakeTPS(2, 1))) / 2
	if got, want := hs.Effects["tps"]["node-b"], 100*(math.Exp(d/2)-1); math.Abs(got-want) > 1e-9 {
		t.Errorf("node-b's effect %v, want %v", got, want)
	}
	if got, want := hs.Effects["tps"]["node-a"], 100*(math.Exp(-d/2)-1); math.Abs(got-want) > 1e-9 {
		t.Errorf("node-a's effect %v, want %v", got, want)
	}
	if len(hs.Within) != 2 {
		t.Fatalf("within hosts %+v, want the two cells of think=10ms", hs.Within)
	}
	for _, w := range hs.Within {
		if w.Test.Shared != 2 || w.Test.Diff != 0 || !slices.Equal(w.CellHosts, []string{"node-a", "node-b"}) {
			t.Errorf("%+v", w)
		}
	}
	fs := rep.HostFindings()
	spread := fmt.Sprintf("(spread %.2f%%: the highest host over the lowest)", 100*(math.Exp(d)-1))
	if len(fs) != 3 || !strings.HasPrefix(fs[0], "TPS between hosts: node-a -") || !strings.HasSuffix(fs[0], spread) ||
		fs[1] != "TPS within hosts: think=10ms is 0.00% faster than think=0s at users=1 (2 hosts, untestable: too few runs a host, or no spread)" {
		t.Errorf("findings %q", fs)
	}
	dir := t.TempDir()
	if err := rep.Write(dir); err != nil {
		t.Fatal(err)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, CellsCSVFile))
	if !strings.Contains(string(csv), ",dir,host,") || strings.Count(string(csv), ",node-b,") != 4 {
		t.Errorf("cells.csv:\n%s", csv)
	}
	sum, err := metrics.ReadJSONFile[struct {
		Hosts *HostSummary `json:"hosts"`
	}](filepath.Join(dir, SummaryFile))
	if err != nil || sum.Hosts == nil || len(sum.Hosts.Within) != 2 {
		t.Errorf("summary.json's hosts: %v %+v", err, sum)
	}

	// A cell on one host, its baseline on another: warned of.
	cross := filepath.Join(t.TempDir(), "cross")
	for i, h := range []string{"node-a", "node-b", "node-a", "node-a"} {
		t.Setenv(host.HostnameEnv, h)
		if _, err := runTask(context.Background(), taskRunner(p, cross, i, i)); err != nil {
			t.Fatal(err)
		}
	}
	rep = loadReport(t, cross)
	want := "warning: TPS: think=10ms at users=1 is compared with think=0s across hosts only (it ran on node-b, its baseline on node-a): the difference includes the machines'; run each block on one host (--shard K/N blocks by host, `study tasks --hosts N`)"
	if fs := rep.HostFindings(); !slices.Contains(fs, want) {
		t.Errorf("findings %q\nwant %q", fs, want)
	}
}
