package study

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"tierbench/internal/host"
	"tierbench/internal/metrics"
	"tierbench/internal/result"
	"tierbench/internal/rundir"
	"tierbench/internal/workload"
)

// taskRunner runs tasks first to last of plan in out with fake phase commands.
func taskRunner(p *Plan, out string, first, last int, env ...string) *Runner {
	r := fakeRunner(p, out, env...)
	r.Tasks = &TaskRange{first, last}
	return r
}

// code is the exit status err gives a scheduled command: 0 for nil, 1 for an error
// without a status of its own.
func code(err error) int {
	err = exitStatus(err, true)
	var ee *workload.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.Code
	}
	return 1
}

// runTask runs tasks first to last as `study run --task(s)` ends them: the tally's
// failures and interruption become the command's error.
func runTask(ctx context.Context, r *Runner) (*Tally, error) {
	tally, err := r.Run(ctx)
	if err != nil {
		return tally, err
	}
	return tally, taskEnd(tally, r.Out)
}

// TestTaskRuns: tasks run one run each, two at once in the OUT they share; each
// run records its task, its attempt and its host; a task run again keeps what
// finished, keeps a run that failed for a cause of its own (exit 1) unless
// --retry-failed, and runs again one that was killed from outside or interrupted
// (exit 75), its earlier attempt's files renamed NAME.partial.json.
func TestTaskRuns(t *testing.T) {
	t.Setenv(host.HostnameEnv, "node-a")
	p := mustExpand(t, fakeStudy, "")
	out := filepath.Join(t.TempDir(), "shared")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = runTask(context.Background(), taskRunner(p, out, i, i))
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("two tasks at once: %v, %v", errs[0], errs[1])
	}
	ts := p.Tasks()
	for i := range 2 {
		task := ts.List[i]
		r := readRun(t, out, task.Cell.ID, task.Rep)
		if r.Status != result.StatusOK || r.Task != i || r.Attempt != 1 || r.Host.Key() != "node-a" || r.Format != runFormat {
			t.Errorf("task %d: %+v", i, r)
		}
	}
	if rec, err := ReadRecord(out); err != nil || rec.Fingerprint != p.Fingerprint {
		t.Errorf("study.json of the tasks: %v %+v", err, rec)
	}
	if _, err := os.Stat(filepath.Join(out, rundir.ReportFile)); err == nil {
		t.Error("a task wrote the report: the tasks' report is `study report`'s")
	}
	// Run again: kept.
	tally, err := runTask(context.Background(), taskRunner(p, out, 0, 0))
	if err != nil || tally.Finished != 1 || tally.OK != 0 {
		t.Errorf("task 0 again: %+v %v: want it kept", tally, err)
	}

	// A run that fails for a cause of its own: exit 1, kept when run again,
	// run again with --retry-failed, its first attempt set aside as partial.
	task2 := ts.List[2]
	_, err = runTask(context.Background(), taskRunner(p, out, 2, 2, fakeFailEnv+"="+task2.Cell.ID))
	if c := code(err); c != 1 || !strings.Contains(err.Error(), "fix the cause and run the task again with --retry-failed") {
		t.Errorf("a failing task: exit %d, %v", c, err)
	}
	_, err = runTask(context.Background(), taskRunner(p, out, 2, 2))
	if c := code(err); c != 1 {
		t.Errorf("the failed task again: exit %d (%v), want 1: kept as recorded", c, err)
	}
	retry := taskRunner(p, out, 2, 2)
	retry.RetryFailed = true
	if _, err := runTask(context.Background(), retry); err != nil {
		t.Fatalf("--retry-failed: %v", err)
	}
	dir2 := RunDir(out, task2.Cell.ID, task2.Rep)
	if r := readRun(t, out, task2.Cell.ID, task2.Rep); r.Status != result.StatusOK || r.Attempt != 2 {
		t.Errorf("task 2 retried: %+v", r)
	}
	if old, err := metrics.ReadJSONFile[RunRecord](filepath.Join(dir2, rundir.EarlierDir, "1", "cell"+PartialSuffix)); err != nil || old == nil || old.Status != result.StatusFailed {
		t.Errorf("the failed attempt, set aside: %v %+v", err, old)
	}
	noRunFiles(t, filepath.Join(dir2, rundir.EarlierDir))

	// Killed from outside (the OOM killer): exit 75, and run again without
	// --retry-failed.
	task3 := ts.List[3]
	_, err = runTask(context.Background(), taskRunner(p, out, 3, 3, fakeKillEnv+"=1"))
	if c := code(err); c != ExitRetry {
		t.Errorf("a task killed from outside: exit %d (%v), want %d", c, err, ExitRetry)
	}
	if r := readRun(t, out, task3.Cell.ID, task3.Rep); !r.Transient || r.Status != result.StatusFailed {
		t.Errorf("the killed task's record: %+v", r)
	}
	if _, err := runTask(context.Background(), taskRunner(p, out, 3, 3)); err != nil {
		t.Errorf("the killed task again: %v", err)
	}
	if r := readRun(t, out, task3.Cell.ID, task3.Rep); r.Status != result.StatusOK || r.Attempt != 2 {
		t.Errorf("the killed task, run again: %+v", r)
	}

	// Interrupted (the scheduler's SIGTERM): exit 75; run again, the partial attempt
	// set aside.
	task4 := ts.List[4]
	dir4 := RunDir(out, task4.Cell.ID, task4.Rep)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(filepath.Join(dir4, StdoutFile)); err == nil {
				time.Sleep(200 * time.Millisecond)
				cancel()
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	_, err = runTask(ctx, taskRunner(p, out, 4, 4, fakeSleepEnv+"=1m"))
	cancel()
	if c := code(err); c != ExitRetry || !errors.Is(err, context.Canceled) {
		t.Errorf("an interrupted task: exit %d (%v), want %d", c, err, ExitRetry)
	}
	if _, err := runTask(context.Background(), taskRunner(p, out, 4, 4)); err != nil {
		t.Fatalf("the interrupted task again: %v", err)
	}
	if old, err := metrics.ReadJSONFile[RunRecord](filepath.Join(dir4, rundir.EarlierDir, "1", "cell"+PartialSuffix)); err != nil || old == nil || old.Status != result.StatusInterrupted {
		t.Errorf("the interrupted attempt, set aside: %v %+v", err, old)
	}
	noRunFiles(t, filepath.Join(dir4, rundir.EarlierDir))

	// Another attempt at a task still running holds its lock: exit 75, and the run
	// is left alone.
	task5 := ts.List[5]
	if err := os.MkdirAll(filepath.Dir(RunDir(out, task5.Cell.ID, task5.Rep)), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := rundir.AcquireFile(filepath.Dir(RunDir(out, task5.Cell.ID, task5.Rep)), "rep-2.lock", "another attempt")
	if err != nil {
		t.Fatal(err)
	}
	_, err = runTask(context.Background(), taskRunner(p, out, 5, 5))
	l.Release()
	var busy *rundir.BusyError
	if c := code(err); c != ExitRetry || !errors.As(err, &busy) || !strings.Contains(err.Error(), "another attempt at it is running") {
		t.Errorf("a task another attempt holds: exit %d, %v", c, err)
	}
	if _, err := os.Stat(filepath.Join(RunDir(out, task5.Cell.ID, task5.Rep), RunFile)); err == nil {
		t.Error("the refused attempt wrote cell.json")
	}
}

// noRunFiles fails when a file under dir is named as a run's result or record.
func noRunFiles(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && (d.Name() == result.File || d.Name() == RunFile) {
			t.Errorf("%s: an attempt set aside is named as a run", path)
		}
		return nil
	})
}

// TestTaskBadInput: a task index beyond the study's, a directory of another study
// (another size, another file), a shard's directory and files of another format are
// each refused in one line with its exit status, before anything runs, leaving the
// directory as it was.
func TestTaskBadInput(t *testing.T) {
	p := mustExpand(t, fakeStudy+"sizes:\n  more: {repetitions: 3}\n", "")
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh")
	_, err := taskRunner(p, fresh, 8, 8).Run(context.Background())
	want := "nothing was run: --task 8: study fake at the file's own size has 8 tasks, 0 to 7 (`tierbench study tasks test.yaml` lists them), while it has more at --size more 12: was the index counted at another size?"
	if c := code(err); c != ExitUsage || err.Error() != want {
		t.Errorf("--task 8: exit %d, %v\nwant %s", c, err, want)
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Error("the refused task created its --out")
	}

	out := filepath.Join(dir, "out")
	if _, err := taskRunner(p, out, 0, 0).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, out)
	more := mustExpand(t, fakeStudy+"sizes:\n  more: {repetitions: 3}\n", "more")
	_, err = taskRunner(more, out, 1, 1).Run(context.Background())
	if c := code(err); c != ExitConfig || !strings.Contains(err.Error(), "holds study fake at the file's own size (fingerprint "+short(p.Fingerprint)+", 2 repetitions, in a fixed order)") ||
		!strings.Contains(err.Error(), "this task is of study fake at --size more (fingerprint "+short(p.Fingerprint)+", 3 repetitions, in a fixed order)") {
		t.Errorf("a task of another size: exit %d, %v", c, err)
	}
	other := mustExpand(t, strings.Replace(fakeStudy, "duration: 1s", "duration: 2s", 1), "")
	if _, err := taskRunner(other, out, 1, 1).Run(context.Background()); code(err) != ExitConfig {
		t.Errorf("a task of a changed file: %v", err)
	}
	if after := snapshot(t, out); after != before {
		t.Errorf("a refused task changed %s:\n%s\nthen\n%s", out, before, after)
	}

	shard := filepath.Join(dir, "shard")
	os.MkdirAll(shard, 0o755)
	metrics.WriteJSONFile(filepath.Join(shard, RecordFile), p.Record(Shard{K: 1, N: 2, Blocking: ByHost}))
	if _, err := taskRunner(p, shard, 0, 0).Run(context.Background()); code(err) != ExitUsage || !strings.Contains(err.Error(), "was run as shard 1/2") {
		t.Errorf("a task in a shard's directory: %v", err)
	}
	// --shard 1/1 (the whole study) or another split of 1/2, on shard 1/2's directory.
	for _, sh := range []Shard{All, {K: 1, N: 2, Blocking: ByCell}} {
		r := fakeRunner(p, shard)
		r.Shard = sh
		_, err := r.Run(context.Background())
		if code(err) != ExitUsage || !strings.HasPrefix(err.Error(), "--out "+shard+" was run as shard 1/2 (blocked by host), and this is ") {
			t.Errorf("--shard %s (%s) on shard 1/2's directory: exit %d, %v", sh, splitName(sh.Blocking), code(err), err)
		}
	}
	if after := snapshot(t, shard); !strings.Contains(after, RecordFile) || strings.Contains(after, "cells") {
		t.Errorf("a refused shard changed %s:\n%s", shard, after)
	}

	// study.json of a format this tierbench does not read, written by another build.
	newer := filepath.Join(dir, "newer")
	os.MkdirAll(newer, 0o755)
	rec := p.Record(All)
	rec.Format, rec.Tierbench = 2, host.Build{Version: "v9.0.0", Commit: "0123456789abcdef"}
	metrics.WriteJSONFile(filepath.Join(newer, RecordFile), rec)
	_, err = taskRunner(p, newer, 0, 0).Run(context.Background())
	if c := code(err); c != ExitData || !strings.HasPrefix(err.Error(), filepath.Join(newer, RecordFile)+" was written by tierbench v9.0.0 (0123456789ab) in format 2, and this tierbench (") {
		t.Errorf("study.json of format 2: exit %d, %v", c, err)
	}
}

// snapshot lists the files under dir with their sizes and times.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b bytes.Buffer
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, _ := d.Info()
		fmt.Fprintf(&b, "%s %s %d\n", path, info.ModTime(), info.Size())
		return nil
	})
	return b.String()
}

// TestScratch: with --scratch a run runs on this machine's disk and its files end
// in OUT, nothing left behind; what an attempt killed on this machine left there is
// brought into OUT and set aside as partial.
func TestScratch(t *testing.T) {
	p := mustExpand(t, fakeStudy, "")
	out, scratch := filepath.Join(t.TempDir(), "out"), t.TempDir()
	r := taskRunner(p, out, 0, 0)
	r.Scratch = scratch
	if _, err := runTask(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	task := p.Tasks().List[0]
	dir := RunDir(out, task.Cell.ID, task.Rep)
	for _, f := range []string{RunFile, StdoutFile, StderrFile, result.File} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("OUT lacks the run's %s: %v", f, err)
		}
	}
	work := RunDir(filepath.Join(scratch, "fake-"+short(p.Fingerprint)), task.Cell.ID, task.Rep)
	if rec := readRun(t, out, task.Cell.ID, task.Rep); rec.Status != result.StatusOK || rec.Host == nil || len(rec.Host.Disks) == 0 || rec.Host.Disks[0].Dirs[0] != work {
		t.Errorf("the run's record: %+v, want it run in %s", rec, work)
	}
	if left, _ := os.ReadDir(scratch); len(left) != 0 {
		t.Errorf("--scratch keeps %v", left)
	}

	// An attempt at task 1 killed on this machine left its files in scratch.
	task1 := p.Tasks().List[1]
	work1 := RunDir(filepath.Join(scratch, "fake-"+short(p.Fingerprint)), task1.Cell.ID, task1.Rep)
	os.MkdirAll(filepath.Join(work1, "db"), 0o755)
	os.WriteFile(filepath.Join(work1, result.File), []byte(`{"tps": 1}`), 0o644)
	os.WriteFile(filepath.Join(work1, "db", "big.db"), make([]byte, 1<<20), 0o644)
	r = taskRunner(p, out, 1, 1)
	r.Scratch = scratch
	if _, err := runTask(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	dir1 := RunDir(out, task1.Cell.ID, task1.Rep)
	if b, err := os.ReadFile(filepath.Join(dir1, rundir.EarlierDir, "1", "result"+PartialSuffix)); err != nil || string(b) != `{"tps": 1}` {
		t.Errorf("the killed attempt's result: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir1, rundir.EarlierDir, "1", "db")); err == nil {
		t.Error("the killed attempt's database was carried into OUT")
	}
	if rec := readRun(t, out, task1.Cell.ID, task1.Rep); rec.Status != result.StatusOK || rec.Attempt != 2 {
		t.Errorf("task 1: %+v", rec)
	}
	if left, _ := os.ReadDir(scratch); len(left) != 0 {
		t.Errorf("--scratch keeps %v", left)
	}
}

// TestMoveAcrossFileSystems: --scratch on a machine's own disk and OUT on shared
// storage are two file systems, where a rename fails (EXDEV) and move copies: the
// tree, each file's bytes and mode, and symbolic links; then removes the source.
func TestMoveAcrossFileSystems(t *testing.T) {
	src, err := os.MkdirTemp("/dev/shm", "tierbench-move-")
	if err != nil {
		t.Skipf("no tmpfs at /dev/shm to move from: %v", err)
	}
	defer os.RemoveAll(src)
	dst := filepath.Join(t.TempDir(), "run")
	var a, b syscall.Stat_t
	if syscall.Stat(src, &a) != nil || syscall.Stat(filepath.Dir(dst), &b) != nil || a.Dev == b.Dev {
		t.Skip("/dev/shm and the test's directory are one file system here")
	}
	os.MkdirAll(filepath.Join(src, "figures"), 0o755)
	os.WriteFile(filepath.Join(src, "figures", "tps.svg"), []byte("<svg/>"), 0o640)
	os.WriteFile(filepath.Join(src, "result.json"), []byte(`{"tps": 2}`), 0o600)
	os.Symlink("result.json", filepath.Join(src, "latest.json"))
	if err := move(src, dst); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "figures", "tps.svg")); err != nil || string(b) != "<svg/>" {
		t.Errorf("figures/tps.svg: %q %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(dst, "result.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("result.json: %v %v", fi, err)
	}
	if l, err := os.Readlink(filepath.Join(dst, "latest.json")); err != nil || l != "result.json" {
		t.Errorf("the link: %q %v", l, err)
	}
	if _, err := os.Stat(src); !os.IsNotExist(err) {
		t.Errorf("the source is left: %v", err)
	}
}
