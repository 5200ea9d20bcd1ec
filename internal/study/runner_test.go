package study

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"tierbench/internal/metrics"
	"tierbench/internal/report/quantity"
	"tierbench/internal/report/stats"
	"tierbench/internal/result"
	"tierbench/internal/rundir"
)

const fakeStudy = `name: fake
workload: oltp
params: {mix: bbs, scale: 0.001, ramp: 0s, duration: 1s}
factors:
  users: [1, 2]
  think: [0s, 10ms]
repetitions: 2
baseline: {think: 0s}
`

// fakeRunner runs plan in out with fake phase commands; env is added to theirs.
func fakeRunner(p *Plan, out string, env ...string) *Runner {
	return &Runner{Plan: p, Out: out, Shard: All, Stdout: io.Discard, Lock: "study test", KillAfter: 5 * time.Second,
		Command: func(args []string) *exec.Cmd {
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(append(os.Environ(), fakePhaseEnv+"=1"), env...)
			return cmd
		}}
}

func readRun(t *testing.T, out, cell string, rep int) *RunRecord {
	t.Helper()
	r, err := metrics.ReadJSONFile[RunRecord](filepath.Join(RunDir(out, cell, rep), RunFile))
	if err != nil || r == nil {
		t.Fatalf("cell %s rep %d: %v (no %s)", cell, rep, err, RunFile)
	}
	return r
}

// TestRunnerFailsResumesRetries: a failing run is recorded with its cause and the
// study goes on; running again skips what finished and keeps what failed;
// --retry-failed runs the failed ones again; a changed file is refused naming the
// cells, before anything runs; the report's means are those of the runs' numbers.
func TestRunnerFailsResumesRetries(t *testing.T) {
	p := mustExpand(t, fakeStudy, "")
	out := t.TempDir()
	tally, err := fakeRunner(p, out, fakeFailEnv+"=users=2,think=10ms").Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tally.Runs != 8 || tally.OK != 6 || tally.Failed != 2 || tally.Interrupted {
		t.Fatalf("first run: %+v, want 6 ok and 2 failed of 8", tally)
	}
	bad := readRun(t, out, "users=2,think=10ms", 2)
	if bad.Status != result.StatusFailed || !strings.Contains(bad.Error, "load: exit status 1: the fake phase failed on purpose") || len(bad.Phases) != 1 {
		t.Errorf("failed run recorded as %s %q with %d phases", bad.Status, bad.Error, len(bad.Phases))
	}
	good := readRun(t, out, "users=2,think=0s", 1)
	if good.Status != result.StatusOK || len(good.Metrics) != 1 || good.Metrics[0].Value != fakeTPS(2, 1) || good.Result != "result.json" {
		t.Errorf("ok run recorded as %+v", good)
	}

	tally, err = fakeRunner(p, out).Run(context.Background())
	if err != nil || tally.Finished != 6 || tally.KeptFailed != 2 || tally.OK+tally.Failed != 0 {
		t.Fatalf("second run: %+v, %v: want 6 skipped, 2 failed kept, nothing run", tally, err)
	}
	r := fakeRunner(p, out)
	r.RetryFailed = true
	tally, err = r.Run(context.Background())
	if err != nil || tally.OK != 2 || tally.Finished != 6 {
		t.Fatalf("--retry-failed: %+v, %v: want the 2 failed runs ok", tally, err)
	}
	if _, err := os.Stat(filepath.Join(RunDir(out, "users=2,think=10ms", 1), "earlier", "1", StderrFile)); err != nil {
		t.Errorf("the failed attempt was not set aside: %v", err)
	}

	changed := mustExpand(t, strings.Replace(fakeStudy, "scale: 0.001", "scale: 0.002", 1), "")
	before, _ := filepath.Glob(filepath.Join(out, CellsDir, "*", "*", "*"))
	_, err = fakeRunner(changed, out).Run(context.Background())
	var mm *MismatchError
	if !errors.As(err, &mm) || mm.Runs != 8 || !strings.Contains(err.Error(), "cell users=1,think=0s (--scale was 0.001, now 0.002)") ||
		!strings.Contains(err.Error(), "and 1 more cells") {
		t.Errorf("changed file: %v, want a mismatch naming the cells", err)
	}
	if after, _ := filepath.Glob(filepath.Join(out, CellsDir, "*", "*", "*")); len(after) != len(before) {
		t.Errorf("the refused study touched its runs: %d files, then %d", len(before), len(after))
	}

	rep := loadReport(t, out)
	for _, cs := range rep.Summary.Cells {
		c := p.Cell(cs.ID)
		users := map[string]int{"1": 1, "2": 2}[c.Values["users"][0]]
		want := stats.Summarise([]float64{fakeTPS(users, 1), fakeTPS(users, 2)}, quantity.NonNegative) // TPS: 0 or more
		got := cs.Metrics["tps"].Stats
		if got.N != 2 || got.Mean != want.Mean || got.CILow != want.CILow {
			t.Errorf("cell %s: tps %+v, want %+v", cs.ID, got, want)
		}
		base := strings.Replace(cs.ID, "think=10ms", "think=0s", 1)
		if cs.Against != base {
			t.Errorf("cell %s is compared with %q, want %q", cs.ID, cs.Against, base)
		}
	}
	if err := rep.Write(out); err != nil {
		t.Fatal(err)
	}
}

// TestRunnerInterrupted: Ctrl-C (the context ends) stops the run in progress, which
// is recorded as interrupted; the finished runs stay; running again runs the rest.
func TestRunnerInterrupted(t *testing.T) {
	p := mustExpand(t, fakeStudy, "")
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Stop once two runs have finished and a third has started (its stdout.log is
	// there): each phase takes half a second, so the stop finds it running.
	go func() {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			done, _ := filepath.Glob(filepath.Join(out, CellsDir, "*", "*", RunFile))
			started, _ := filepath.Glob(filepath.Join(out, CellsDir, "*", "*", StdoutFile))
			if len(done) >= 2 && len(started) > len(done) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	tally, err := fakeRunner(p, out, fakeSleepEnv+"=500ms").Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !tally.Interrupted || tally.OK < 2 || tally.OK >= 8 {
		t.Fatalf("interrupted study: %+v", tally)
	}
	runs, _, err := readRuns(out)
	if err != nil {
		t.Fatal(err)
	}
	interrupted := 0
	for _, r := range runs {
		if r.Status == result.StatusInterrupted {
			interrupted++
		}
	}
	if interrupted != 1 || len(runs) != tally.OK+1 {
		t.Errorf("%d runs recorded, %d interrupted; want the %d ok and the one interrupted", len(runs), interrupted, tally.OK)
	}
	first := tally.OK
	tally, err = fakeRunner(p, out).Run(context.Background())
	if err != nil || tally.Finished != first || tally.OK != 8-first || tally.Interrupted {
		t.Fatalf("resume: %+v, %v", tally, err)
	}
}

// TestRunnerTimeout: a run that takes longer than the study's timeout is stopped and
// recorded as failed, saying so, and the study goes on to the next.
func TestRunnerTimeout(t *testing.T) {
	src := strings.Replace(fakeStudy, "repetitions: 2", "repetitions: 1\ntimeout: 300ms", 1)
	p := mustExpand(t, src, "")
	p.Cells = p.Cells[:2]
	out := t.TempDir()
	begin := time.Now()
	tally, err := fakeRunner(p, out, fakeSleepEnv+"=1m").Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tally.Failed != 2 || tally.OK != 0 || time.Since(begin) > 50*time.Second {
		t.Fatalf("%+v after %s: want both runs stopped and failed", tally, time.Since(begin))
	}
	r := readRun(t, out, p.Cells[1].ID, 1)
	if r.Status != result.StatusFailed || !strings.Contains(r.Error, "load: timed out after 300ms (the study's timeout for a cell)") {
		t.Errorf("recorded %s: %s", r.Status, r.Error)
	}
}

// TestRunnerLocksOut: while a study runs in OUT, a second one there is refused
// before it runs anything.
func TestRunnerLocksOut(t *testing.T) {
	p := mustExpand(t, fakeStudy, "")
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := fakeRunner(p, out, fakeSleepEnv+"=1m").Run(ctx)
		done <- err
	}()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(time.Minute)
	for {
		if started, _ := filepath.Glob(filepath.Join(out, CellsDir, "*", "*", StdoutFile)); len(started) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first study did not start a run within a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, err := fakeRunner(p, out).Run(context.Background())
	var busy *rundir.BusyError
	if !errors.As(err, &busy) || !strings.Contains(err.Error(), "--out "+out+" is in use by another tierbench") {
		t.Errorf("second study: %v, want a refusal naming --out", err)
	}
}

// TestRunnerFewerRepetitions: a study resumed with fewer repetitions than OUT holds
// keeps the extra runs but leaves them out of its statistics, as its plan says, and
// both the plan and the report say so.
func TestRunnerFewerRepetitions(t *testing.T) {
	out := t.TempDir()
	if _, err := fakeRunner(mustExpand(t, fakeStudy, ""), out).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	one := mustExpand(t, strings.Replace(fakeStudy, "repetitions: 2", "repetitions: 1", 1), "")
	var plan strings.Builder
	r := fakeRunner(one, out)
	r.Stdout = &plan
	tally, err := r.Run(context.Background())
	if err != nil || tally.Finished != 4 || tally.Beyond != 4 || tally.OK+tally.Failed != 0 {
		t.Fatalf("resumed with 1 repetition: %+v, %v", tally, err)
	}
	if !strings.Contains(plan.String(), "also holds 4 runs of repetitions beyond the study's 1") {
		t.Errorf("the plan does not say what it leaves out:\n%s", plan.String())
	}
	res, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 4 || !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "holds 4 runs of repetitions beyond the study's 1") }) {
		t.Errorf("%d runs loaded, notes %q: want the 4 of repetition 1 and a note", len(res.Runs), res.Notes)
	}
	rep, err := BuildReport(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, cs := range rep.Summary.Cells {
		users := map[string]int{"1": 1, "2": 2}[one.Cell(cs.ID).Values["users"][0]]
		if st := cs.Metrics["tps"].Stats; st.N != 1 || st.Mean != fakeTPS(users, 1) {
			t.Errorf("cell %s: tps n = %d, mean %v; want repetition 1 alone, %v", cs.ID, st.N, st.Mean, fakeTPS(users, 1))
		}
	}
}

// TestRunnerEmptyShard: a shard that holds none of the study's cells is refused
// before anything is written.
func TestRunnerEmptyShard(t *testing.T) {
	src := strings.Replace(fakeStudy, "  think: [0s, 10ms]\n", "", 1)
	src = strings.Replace(src, "baseline: {think: 0s}\n", "", 1)
	out := filepath.Join(t.TempDir(), "out")
	r := fakeRunner(mustExpand(t, src, ""), out)
	r.Shard = Shard{K: 3, N: 3}
	_, err := r.Run(context.Background())
	if err == nil || err.Error() != "--shard 3/3: the study has 2 cells, so shard 3 of 3 has none: split it into at most 2 shards (--shard K/2)" {
		t.Errorf("shard 3/3 of 2 cells: %v", err)
	}
	if err := r.DryRun(context.Background()); err == nil {
		t.Error("the dry run of an empty shard passed")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused shard created %s", out)
	}
}

// TestRunnerDamagedFiles: a cell.json or a study.json that does not decode (cut
// short by a disk fault, edited by hand) blocks nothing: the report leaves the run
// out and says how to run it again, or says how to write study.json again; the
// study run says what it found, writes study.json again and runs the damaged run
// again, setting its files aside.
func TestRunnerDamagedFiles(t *testing.T) {
	p := mustExpand(t, fakeStudy, "")
	out := t.TempDir()
	if _, err := fakeRunner(p, out).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	cut := func(path string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b[:40], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	damagedRun := filepath.Join(RunDir(out, "users=2,think=0s", 2), RunFile)
	cut(damagedRun)
	cut(filepath.Join(out, RecordFile))

	_, err := Load(out)
	var d *DamagedError
	if !errors.As(err, &d) || err.Error() != filepath.Join(out, RecordFile)+" is damaged: it is cut short after 40 bytes: run `tierbench study run` with the study's file (and its --size) and --out "+out+" to write it again; the finished runs are kept, and not run again" {
		t.Errorf("report of a damaged study.json: %v", err)
	}

	var plan strings.Builder
	r := fakeRunner(p, out)
	r.Stdout = &plan
	tally, err := r.Run(context.Background())
	if err != nil || tally.Finished != 7 || tally.OK != 1 {
		t.Fatalf("resumed: %+v, %v: want 7 skipped and the damaged run made again", tally, err)
	}
	for _, want := range []string{
		filepath.Join(out, RecordFile) + " is damaged: it is cut short after 40 bytes: it is written again from test.yaml",
		damagedRun + " is damaged: it is cut short after 40 bytes: that run counts as not run, and runs again (its files set aside in " + filepath.Join(RunDir(out, "users=2,think=0s", 2), "earlier") + ")",
	} {
		if !strings.Contains(plan.String(), want) {
			t.Errorf("the plan does not say %q:\n%s", want, plan.String())
		}
	}
	// Set aside under a name no reader takes for a run's (PartialSuffix).
	if b, err := os.ReadFile(filepath.Join(RunDir(out, "users=2,think=0s", 2), "earlier", "1", "cell"+PartialSuffix)); err != nil || len(b) != 40 {
		t.Errorf("the damaged cell.json was not set aside: %v", err)
	}
	if r := readRun(t, out, "users=2,think=0s", 2); r.Status != result.StatusOK {
		t.Errorf("the run made again: %+v", r)
	}

	cut(damagedRun)
	res, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	note := damagedRun + " is damaged: it is cut short after 40 bytes: that run is left out; `tierbench study run` with the study's file and this directory as --out runs it again"
	if len(res.Runs) != 7 || !slices.Contains(res.Notes, note) {
		t.Errorf("%d runs, notes %q: want 7 and %q", len(res.Runs), res.Notes, note)
	}

	// A damaged result.json costs the report that run's details, not the report:
	// its headline numbers come from its cell.json.
	if err := os.WriteFile(filepath.Join(RunDir(out, "users=1,think=0s", 1), "result.json"), []byte(`{"users": 1, "tp`), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := BuildReport(res)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool {
		return strings.HasPrefix(n, "users=1,think=0s rep 1: ") && strings.HasSuffix(n, "its latency, devices, energy and verdict are left out (its headline numbers are in its cell.json)")
	}) {
		t.Errorf("notes %q", rep.Notes)
	}
	for _, cs := range rep.Summary.Cells {
		if cs.ID == "users=1,think=0s" && cs.Metrics["tps"].Stats.N != 2 {
			t.Errorf("cell %s: tps of %d runs, want both", cs.ID, cs.Metrics["tps"].Stats.N)
		}
	}
}

// TestRunnerCauses: the cause recorded for a run names who ended it: a SIGKILL from
// outside the study by its signal's name, a timeout that the run survived past its
// grace period as killed, not as stopped with SIGTERM.
func TestRunnerCauses(t *testing.T) {
	src := strings.Replace(fakeStudy, "repetitions: 2", "repetitions: 1\ntimeout: 300ms", 1)
	p := mustExpand(t, src, "")
	p.Cells = p.Cells[:1]

	out := t.TempDir()
	if _, err := fakeRunner(p, out, fakeKillEnv+"=1").Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := readRun(t, out, p.Cells[0].ID, 1)
	if want := "load: killed by SIGKILL (not sent by the study: the kernel's OOM killer or a kill -9; see dmesg)"; r.Error != want {
		t.Errorf("killed from outside: %q, want %q", r.Error, want)
	}

	out = t.TempDir()
	runner := fakeRunner(p, out, fakeStubbornEnv+"=1", fakeSleepEnv+"=1m")
	runner.KillAfter = 200 * time.Millisecond
	if _, err := runner.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	r = readRun(t, out, p.Cells[0].ID, 1)
	if want := "load: timed out after 300ms (the study's timeout for a cell); it did not stop within 200ms of SIGTERM and was killed with SIGKILL"; r.Status != result.StatusFailed || r.Error != want {
		t.Errorf("killed after its grace: %s %q, want %q", r.Status, r.Error, want)
	}
}
