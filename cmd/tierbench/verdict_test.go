package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"tierbench/internal/engine/enginetest"
	"tierbench/internal/engine/postgres"
	"tierbench/internal/verdict"
	"tierbench/internal/workload/oltp"
)

// The verdict's cases, each built for real with `oltp load` and `oltp run` on a mix of
// testdata/verdict, short (seconds) and judged on the level's verdict in result.json.
// Windows are sampled every 250 ms so that a 2 s window has samples enough.

func verdictMix(name string) string { return filepath.Join("testdata", "verdict", name+".yaml") }

// runVerdict runs `oltp run` with args and returns the result and what it printed.
func runVerdict(t *testing.T, out string, args ...string) (*oltp.Result, string) {
	t.Helper()
	args = append([]string{"oltp", "run", "--out", out, "--ramp", "500ms", "--duration", "2s", "--interval", "1s", "--sample", "250ms"}, args...)
	stdout, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("oltp run: %v\n%s", err, stdout)
	}
	var res oltp.Result
	if err := json.Unmarshal(mustRead(t, filepath.Join(out, "result.json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.Verdict == nil {
		t.Fatalf("result.json has no verdict:\n%s", stdout)
	}
	if !strings.Contains(stdout, "verdict, ") {
		t.Errorf("the summary has no verdict line:\n%s", stdout)
	}
	return &res, stdout
}

// level is the verdict of users' level, failing t when there is none.
func level(t *testing.T, res *oltp.Result, users int) *verdict.Verdict {
	t.Helper()
	v := res.Verdict.Level(users)
	if v == nil {
		t.Fatalf("no verdict for %d users: %+v", users, res.Verdict)
	}
	return v
}

// TestVerdictLockBound: every transaction updates the same row and holds its lock over
// three round trips and the commit. One user never waits for it; eight mostly do, on
// PostgreSQL's Lock/transactionid, and buy no more throughput than one.
func TestVerdictLockBound(t *testing.T) {
	enginetest.RequireServer(t, postgres.Installed())
	out := enginetest.ServerDir(t)
	if _, err := runCLI(t, "oltp", "load", "--engine", "postgres", "--mix", verdictMix("hot-row"), "--out", out); err != nil {
		t.Fatal(err)
	}
	res, stdout := runVerdict(t, out, "--engine", "postgres", "--mix", verdictMix("hot-row"), "--users", "1,8")
	v := level(t, res, 8)
	lock := v.Finding(verdict.Lock)
	if v.Primary != verdict.Lock || lock == nil {
		t.Fatalf("8 users: %s, want lock-bound; findings %+v", v.Headline, v.Findings)
	}
	if len(lock.Waits) == 0 || lock.Waits[0].Name != "Lock.transactionid" || lock.ExplainsPct < verdict.Defaults.LockPct {
		t.Errorf("the lock finding names %+v and explains %v%%, want Lock.transactionid first and at least %v%%", lock.Waits, lock.ExplainsPct, verdict.Defaults.LockPct)
	}
	if one := level(t, res, 1); one.Primary == verdict.Lock {
		t.Errorf("1 user is lock-bound: %s", one.Headline)
	}
	if !strings.Contains(stdout, "by level: 1 user ") || !strings.Contains(stdout, ", 8 users lock-bound (") {
		t.Errorf("the summary's verdict lines:\n%s", stdout)
	}
}

// TestVerdictDeviceBound: random point reads of a table about six times the page
// caches in front of an emulated 7,200 rpm disk (SQLite's 2 MB, the emulated
// machine's 1 MiB): nearly every read waits for the disk. The table is loaded on a
// fast tier and read through the disk's profile: the same files.
func TestVerdictDeviceBound(t *testing.T) {
	needFUSE(t)
	out := t.TempDir()
	if _, err := runCLI(t, "oltp", "load", "--mix", verdictMix("cold-read"), "--data", "sata-ssd", "--out", out); err != nil {
		t.Fatal(err)
	}
	res, _ := runVerdict(t, out, "--mix", verdictMix("cold-read"), "--data", "pagecache(hdd-7200,size=1MiB)", "--users", "4")
	v := level(t, res, 4)
	dev := v.Finding(verdict.Device)
	if v.Primary != verdict.Device || dev == nil || !strings.Contains(dev.Resource, "tier data (emulated pagecache(hdd-7200,size=1MiB); holds data)") {
		t.Fatalf("4 users: %s, want the data tier device-bound; findings %+v", v.Headline, v.Findings)
	}
	if !dev.Fired || dev.ExplainsPct < 50 {
		t.Errorf("the device finding %+v: want it fired, the users waiting for it most of their time", dev)
	}
	noMountsUnder(t, out)
}

// TestVerdictCPUBound: every transaction scans a small cached table on a tier in
// memory and matches a pattern against each row: a user for each CPU wants them all
// (and the engine runs inside tierbench, which the verdict says). Not more users than
// CPUs: goroutines waiting for one of tierbench's threads are not seen (doc.go).
func TestVerdictCPUBound(t *testing.T) {
	fast := t.TempDir()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		dir, err := os.MkdirTemp("/dev/shm", "tierbench-test-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		fast = dir
	}
	out := t.TempDir()
	tier := []string{"--tier", "fast=" + fast, "--data", "fast"}
	if _, err := runCLI(t, append([]string{"oltp", "load", "--mix", verdictMix("cpu-scan"), "--out", out}, tier...)...); err != nil {
		t.Fatal(err)
	}
	users := runtime.NumCPU()
	res, _ := runVerdict(t, out, append([]string{"--mix", verdictMix("cpu-scan"), "--users", strconv.Itoa(users)}, tier...)...)
	v := level(t, res, users)
	cpu := v.Finding(verdict.CPU)
	if v.Primary != verdict.CPU || cpu == nil || cpu.CPU == nil || cpu.CPU.Tierbench <= 0 {
		t.Fatalf("%d users: %s, want CPU-bound; findings %+v", users, v.Headline, v.Findings)
	}
	if !strings.Contains(cpu.Text, "tierbench with the embedded engine") {
		t.Errorf("the CPU finding %q does not say the engine runs in tierbench", cpu.Text)
	}
}

// TestVerdictFlashStory (TIERBENCH_VERDICT_FLASH=1; about 30 s, so not in the default
// run: scripts/verdict-flash measures it with more levels): the policy mix with a hot
// spot on PostgreSQL, its data on an emulated hdd-7200 behind a 4 MB buffer, is
// lock-bound at 8 users; without the hot spot the same sweep is device-bound.
func TestVerdictFlashStory(t *testing.T) {
	if os.Getenv("TIERBENCH_VERDICT_FLASH") == "" {
		t.Skip("set TIERBENCH_VERDICT_FLASH=1 to run the flash study's story (about 30 s)")
	}
	enginetest.RequireServer(t, postgres.Installed())
	needFUSE(t)
	for _, tc := range []struct {
		mix  string
		want verdict.Rule
	}{{verdictMix("policy-hot"), verdict.Lock}, {"policy", verdict.Device}} {
		out := enginetest.ServerDir(t)
		if _, err := runCLI(t, "oltp", "load", "--engine", "postgres", "--mix", tc.mix, "--scale", "0.2", "--data", "sata-ssd", "--out", out); err != nil {
			t.Fatal(err)
		}
		res, _ := runVerdict(t, out, "--engine", "postgres", "--mix", tc.mix, "--data", "hdd-7200", "--buffer", "4MB", "--users", "2,8")
		if v := level(t, res, 8); v.Primary != tc.want {
			t.Errorf("%s, 8 users: %s, want %s", tc.mix, v.Headline, tc.want.Title())
		}
		noMountsUnder(t, out)
	}
}
