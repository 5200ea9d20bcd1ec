package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"tierbench/internal/diskfull"
	"tierbench/internal/engine/enginetest"
	"tierbench/internal/engine/postgres"
	"tierbench/internal/rundir"
)

// asTierbenchEnv makes the test binary run as tierbench (TestMain).
const asTierbenchEnv = "TIERBENCH_CMD_TEST_AS_TIERBENCH"

// loadPointSelect loads a tiny point-select mix into SQLite: OUT, the database in db
// ("" for OUT/db).
func loadPointSelect(t *testing.T, out, db string) {
	t.Helper()
	args := []string{"oltp", "load", "--mix", "point-select", "--scale", "0.001", "--out", out}
	if db != "" {
		args = append(args, "--db", db)
	}
	if _, err := runCLI(t, args...); err != nil {
		t.Fatalf("load: %v", err)
	}
}

// TestSecondRunInSameOut: while one tierbench runs in --out (a real second process),
// another is refused with a message naming it; once the first is killed with SIGKILL,
// its lock blocks no one, and what it left is set aside, not overwritten.
func TestSecondRunInSameOut(t *testing.T) {
	out := t.TempDir()
	loadPointSelect(t, out, "")
	runArgs := []string{"oltp", "run", "--mix", "point-select", "--ramp", "0s", "--interval", "1s", "--out", out}
	first := exec.Command(os.Args[0], append(runArgs, "--duration", "2m")...)
	first.Env = append(os.Environ(), asTierbenchEnv+"=1")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { first.Process.Kill(); first.Wait() })
	// Running: it holds the lock and has written an interval.
	lockFile := filepath.Join(out, rundir.LockFile)
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(string(readOrEmpty(lockFile)), fmt.Sprintf(`"pid":%d,`, first.Process.Pid)) ||
		!bytes.Contains(readOrEmpty(filepath.Join(out, "intervals.jsonl")), []byte("\n")) {
		if time.Now().After(deadline) {
			t.Fatal("the first run did not lock --out and write an interval within a minute")
		}
		time.Sleep(20 * time.Millisecond)
	}

	_, err := runCLI(t, append(runArgs, "--duration", "1s")...)
	var busy *rundir.BusyError
	if !errors.As(err, &busy) {
		t.Fatalf("second run: %v, want a refusal", err)
	}
	want := fmt.Sprintf("--out %s is in use by another tierbench (pid %d, since %s: %s %s --duration 2m): wait for it to finish, or choose another directory",
		out, first.Process.Pid, busy.Holder.Since.Local().Format("2006-01-02 15:04:05"), os.Args[0], strings.Join(runArgs, " "))
	if err.Error() != want {
		t.Errorf("refusal\n%s\nwant\n%s", err, want)
	}

	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	stdout, stderr, err := runCLIStderr(t, append(runArgs, "--duration", "1s")...)
	if err != nil {
		t.Fatalf("run after the first was killed: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "result: "+filepath.Join(out, "result.json")) {
		t.Errorf("no result line:\n%s", stdout)
	}
	// The killed run had written intervals: they are set aside whole.
	aside := filepath.Join(out, "earlier", "1")
	if !strings.Contains(stderr, "note: the earlier run's intervals.jsonl and metrics.jsonl are in "+aside) {
		t.Errorf("stderr does not say where the killed run's files went:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(aside, "intervals.jsonl")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(lockFile); !os.IsNotExist(err) {
		t.Errorf("lock file after the run: %v", err)
	}
}

func readOrEmpty(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}

// TestFullDiskKeepsEarlierRun: an oltp run into an --out holding an earlier run, on a
// disk that is full: the earlier result and intervals stay whole (set aside), the new
// run's files hold whole lines only, and the error says truly what was kept.
func TestFullDiskKeepsEarlierRun(t *testing.T) {
	out := diskfull.Mount(t, 4<<20)
	db := filepath.Join(t.TempDir(), "db") // the database is on another disk
	loadPointSelect(t, out, db)
	args := []string{"oltp", "run", "--mix", "point-select", "--ramp", "0s", "--duration", "1s", "--interval", "1s", "--db", db, "--out", out}
	if _, err := runCLI(t, args...); err != nil {
		t.Fatalf("earlier run: %v", err)
	}
	result, intervals := readOrEmpty(filepath.Join(out, "result.json")), readOrEmpty(filepath.Join(out, "intervals.jsonl"))
	if len(result) == 0 || len(intervals) == 0 {
		t.Fatal("the earlier run left no result")
	}
	diskfull.Fill(t, out)

	stdout, stderr, err := runCLIStderr(t, args...)
	if err == nil {
		t.Fatalf("a run on a full disk succeeded:\n%s", stdout)
	}
	msg := err.Error()
	for _, want := range []string{
		"intervals.jsonl holds the first 0 intervals only: ", "no space left on device",
		"(nothing of this run could be written to " + filepath.Join(out, "result.json") + ": the summary above is all that is left of it)",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("the error spans lines:\n%s", msg)
	}
	if strings.Count(msg, "write "+filepath.Join(out, "result.json")+": no space left on device") != 1 {
		t.Errorf("the failed write of result.json is not said once:\n%s", msg)
	}
	if strings.Contains(msg, "what was measured is kept") || strings.Contains(stdout, "result: ") {
		t.Errorf("claims a result was kept:\n%s\n%s", msg, stdout)
	}
	if !strings.Contains(stdout, "mix point-select on sqlite") {
		t.Errorf("no summary:\n%s", stdout)
	}
	aside := filepath.Join(out, "earlier", "1")
	if !bytes.Equal(readOrEmpty(filepath.Join(aside, "result.json")), result) || !bytes.Equal(readOrEmpty(filepath.Join(aside, "intervals.jsonl")), intervals) {
		t.Error("the earlier run's files changed")
	}
	if !strings.Contains(stderr, "note: the earlier run's result.json, intervals.jsonl, metrics.jsonl and metrics.csv are in "+aside) {
		t.Errorf("stderr does not say where the earlier run went:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "result.json")); !os.IsNotExist(err) {
		t.Errorf("result.json: %v, want none", err)
	}
	if b := readOrEmpty(filepath.Join(out, "intervals.jsonl")); len(b) > 0 && !bytes.HasSuffix(b, []byte("\n")) {
		t.Errorf("a torn line in intervals.jsonl: %q", b)
	}
}

// file really holds.
// TestLoadFailureLeavesNoStaleLoadInfo: a load that fails has dropped what the
// earlier load's file describes: that file is set aside, not left to describe data
// that is gone, and a run then asks for a load.
func TestLoadFailureLeavesNoStaleLoadInfo(t *testing.T) {
	out := t.TempDir()
	tiny := "../../internal/workload/oltp/testdata/tiny.yaml"
	if _, err := runCLI(t, "oltp", "load", "--mix", tiny, "--out", out); err != nil {
		t.Fatal(err)
	}
	before := readOrEmpty(filepath.Join(out, "oltp-load.json"))
	// The same mix with a table whose primary key the generated rows repeat (ten rows
	// a group): its load fails after the earlier tables were dropped.
	dup := "  - name: dup\n    rows: 100\n    columns:\n      - {name: grp, type: int, value: {dist: sequence, divide: 10}}\n    primary_key: grp\ntransactions:"
	bad := filepath.Join(t.TempDir(), "tiny.yaml")
	if err := os.WriteFile(bad, bytes.Replace(readOrEmpty(tiny), []byte("transactions:"), []byte(dup), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := runCLIStderr(t, "oltp", "load", "--mix", bad, "--out", out)
	if err == nil {
		t.Fatal("a load of repeated primary keys succeeded")
	}
	aside := filepath.Join(out, "earlier", "1")
	if _, err := os.Stat(filepath.Join(out, "oltp-load.json")); !os.IsNotExist(err) {
		t.Errorf("oltp-load.json after a failed load: %v, want none", err)
	}
	if !bytes.Equal(readOrEmpty(filepath.Join(aside, "oltp-load.json")), before) || !strings.Contains(stderr, "note: the earlier run's oltp-load.json, load-metrics.jsonl and load-metrics.csv are in "+aside) {
		t.Errorf("the earlier load's file is not kept whole in %s (stderr %q)", aside, stderr)
	}
	_, err = runCLI(t, "oltp", "run", "--mix", tiny, "--duration", "1s", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "holds no load (no oltp-load.json)") {
		t.Errorf("run after the failed load: %v", err)
	}
}

// TestRunWithoutLoadStartsNothing: tpcc run and check, and oltp run, on an --out
// without a load are refused before any server starts, and leave nothing there; with
// --db naming a directory without a database, the engine refuses to create one.
func TestRunWithoutLoadStartsNothing(t *testing.T) {
	out := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tpcc", "run", "--engine", "mysql", "--duration", "1s"}, "--out " + out + " holds no load (no load.json): run `tierbench tpcc load --engine mysql --out " + out + "` first"},
		{[]string{"tpcc", "check", "--engine", "postgres"}, "--out " + out + " holds no load (no load.json): run `tierbench tpcc load --engine postgres --out " + out + "` first"},
		{[]string{"oltp", "run", "--mix", "policy", "--engine", "mysql", "--duration", "1s"}, "--out " + out + " holds no load (no oltp-load.json): run `tierbench oltp load --mix policy --engine mysql --out " + out + "` first"},
		{[]string{"tpcc", "run", "--db", filepath.Join(out, "elsewhere"), "--duration", "1s"}, "sqlite: no database in " + filepath.Join(out, "elsewhere") + ": load one first (nothing was created)"},
	} {
		_, err := runCLI(t, append(tc.args, "--out", out)...)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%v:\n%v\nwant\n%s", tc.args, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("--out holds %d entries after refused runs, want none", len(entries))
	}
}

// TestServerInPrivateOut: as root, an --out made by mktemp -d (0700) works for a
// managed server: its user is let through --out alone, and the command says so. A
// closed directory that is not the user's to open is refused with what to do, the
// engine named once (it was "postgres: postgres:").
func TestServerInPrivateOut(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("as root only: unprivileged, the server runs as tierbench's own user")
	}
	enginetest.RequireServer(t, postgres.Installed())
	out, err := os.MkdirTemp("", "tierbench-out-") // 0700, as mktemp -d
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	_, stderr, err := runCLIStderr(t, "oltp", "load", "--engine", "postgres", "--mix", "policy", "--scale", "0.001", "--set", "fsync=off", "--out", out)
	if err != nil {
		t.Fatalf("load into a 0700 --out: %v", err)
	}
	if want := "note: the server's user may now pass through a directory of yours (an ACL entry: search for postgres on " + out + "); result files record it\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}
	if !strings.Contains(string(readOrEmpty(filepath.Join(out, "oltp-load.json"))), `"server_user_acl": "search for postgres on `+out+`"`) {
		t.Error("oltp-load.json does not record the ACL")
	}

	// --db inside a closed directory that is not one the user gave tierbench.
	closed, err := os.MkdirTemp("", "tierbench-closed-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(closed) })
	_, err = runCLI(t, "oltp", "load", "--engine", "postgres", "--mix", "policy", "--db", filepath.Join(closed, "db"), "--out", t.TempDir())
	want := "postgres: the server runs as user postgres, which cannot enter " + closed + " (mode 0700): run chmod o+x " + closed + " or choose a directory it can reach"
	if err == nil || err.Error() != want {
		t.Errorf("closed parent:\n%v\nwant\n%s", err, want)
	}
}

// TestRecordTraceSetsEarlierTracesAside: a second command with --record-trace sets
// the first one's traces aside with its other files instead of truncating them.
func TestRecordTraceSetsEarlierTracesAside(t *testing.T) {
	needFUSE(t)
	out := t.TempDir()
	args := []string{"oltp", "load", "--mix", "point-select", "--scale", "0.001", "--data", "sata-ssd", "--record-trace", "--out", out}
	if _, err := runCLI(t, args...); err != nil {
		t.Fatal(err)
	}
	trace := readOrEmpty(filepath.Join(out, "traces", "data.trace"))
	if len(trace) == 0 {
		t.Fatal("the first load recorded no trace")
	}
	_, stderr, err := runCLIStderr(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	aside := filepath.Join(out, "earlier", "1")
	if !bytes.Equal(readOrEmpty(filepath.Join(aside, "traces", "data.trace")), trace) {
		t.Error("the first load's trace is not kept whole")
	}
	if len(readOrEmpty(filepath.Join(out, "traces", "data.trace"))) == 0 {
		t.Error("the second load recorded no trace")
	}
	if want := "note: the earlier run's oltp-load.json, load-storage.json, load-metrics.jsonl, load-metrics.csv and traces are in " + aside; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}
}
