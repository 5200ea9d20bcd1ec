package twin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tierbench/internal/emulator/emutest"
	_ "tierbench/internal/engine/mysql"
	_ "tierbench/internal/engine/postgres"
	_ "tierbench/internal/engine/sqlite"
)

func TestMain(m *testing.M) { emutest.Main(m) }

// TestSummarise: the error, the spreads and the verdict of each metric, by hand.
func TestSummarise(t *testing.T) {
	c := Case{Workload: "oltp", Engine: "sqlite"}
	rec := func(side Side, round int, tps, p95 float64) RunRecord {
		return RunRecord{Case: c.String(), Side: side, Round: round, Status: "ok", Metrics: map[string]float64{"tps": tps, "p95_ms": p95}}
	}
	runs := []RunRecord{
		rec(Real, 1, 100, 10), rec(Emulated, 1, 105, 13),
		rec(Emulated, 2, 99, 11), rec(Real, 2, 90, 10),
		rec(Real, 3, 110, 10), rec(Emulated, 3, 111, 15),
		{Case: c.String(), Side: Real, Round: 4, Status: "failed", Why: "boom"},
	}
	ms := summarise(runs, []Case{c})
	if len(ms) != 2 {
		t.Fatalf("%d metrics, want tps and p95_ms: %+v", len(ms), ms)
	}
	tps, p95 := ms[0], ms[1]
	// real 100, 90, 110: mean 100, sd 10, CV 10%; emulated 105, 99, 111: mean 105,
	// CV 6/105 = 5.714%; error +5%; paired errors +5, +10, +0.909 (mean 5.303): sd 4.553
	want := Metric{Workload: "oltp", Engine: "sqlite", Name: "tps", Real: 100, Emulated: 105, ErrorPct: 5,
		RealCVPct: 10, EmulatedCVPct: 5.714, ErrorSpreadPct: 4.553, GoalPct: 10, Verdict: "ok"}
	if tps.Real != want.Real || tps.Emulated != want.Emulated || tps.ErrorPct != want.ErrorPct || tps.RealCVPct != want.RealCVPct ||
		tps.EmulatedCVPct != want.EmulatedCVPct || tps.ErrorSpreadPct != want.ErrorSpreadPct || tps.Verdict != want.Verdict {
		t.Errorf("tps: %+v\nwant %+v", tps, want)
	}
	// p95: real 10 flat; emulated 13, 11, 15: mean 13, +30%: a miss (the real side
	// does not vary)
	if p95.ErrorPct != 30 || p95.RealCVPct != 0 || p95.Verdict != "miss" {
		t.Errorf("p95: %+v", p95)
	}
}

func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		m    Metric
		want string
	}{
		{Metric{ErrorPct: -9.9, GoalPct: 10, RealCVPct: 1}, "ok"},
		{Metric{ErrorPct: 15, GoalPct: 10, RealCVPct: 16}, "unresolved"},
		{Metric{ErrorPct: 15, GoalPct: 10, RealCVPct: 14}, "miss"},
		{Metric{ErrorPct: 15, RealCVPct: 14}, ""},
		{Metric{ErrorPct: 15, RealCVPct: 20}, "unresolved"},
	} {
		if got := verdict(c.m); got != c.want {
			t.Errorf("%+v: %q, want %q", c.m, got, c.want)
		}
	}
}

func TestParseCases(t *testing.T) {
	cs, err := parseCases([]string{"oltp-mysql", "tpch-sqlite"})
	if err != nil || len(cs) != 2 || cs[0] != (Case{"oltp", "mysql"}) || cs[1] != (Case{"tpch", "sqlite"}) {
		t.Errorf("%v %v", cs, err)
	}
	if _, err := parseCases([]string{"tpcc-sqlite"}); err == nil || !strings.Contains(err.Error(), "--cases tpcc-sqlite: give WORKLOAD-ENGINE") {
		t.Errorf("error %v", err)
	}
}

// TestValidateProfileFlag: --profile as a file that holds no profile is one line that
// says so and names the file and line.
func TestValidateProfileFlag(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.yaml")
	if err := os.WriteFile(notes, []byte("- just\n- a list\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	where := &Where{Dir: dir, Device: "vdz"}
	_, _, err := resolveProfile(notes, nil, where)
	if err == nil || !strings.Contains(err.Error(), "--profile "+notes+" is not a device profile: "+notes+":1: a profile must be a mapping") {
		t.Errorf("error %v", err)
	}
	_, _, err = resolveProfile("", []string{t.TempDir()}, where)
	if err == nil || !strings.Contains(err.Error(), "no profile twin-vdz for vdz: fit one first (tierbench device fit "+dir+")") {
		t.Errorf("error %v", err)
	}
	if _, _, err := resolveProfile("hdd-7200(rpm=0)", nil, where); err == nil || !strings.Contains(err.Error(), "--profile hdd-7200(rpm=0)") {
		t.Errorf("error %v", err)
	}
}

// TestValidateSQLite runs a tiny validation for real: SQLite on a temporary
// directory and on a twin of it (testdata/twin.yaml), one round of a second. Every
// metric of the case is there on both sides, and validate.json says the same.
func TestValidateSQLite(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "v")
	v := NewValidateSettings()
	for name, value := range map[string]string{"profile": "testdata/twin.yaml", "cases": "oltp-sqlite", "rounds": "1",
		"duration": "2s", "ramp": "0s", "scale": "0.05", "users": "2", "out": out, "page-cache": "256MiB", "json": "true"} {
		if err := v.Params().Set(name, value); err != nil {
			t.Fatal(err)
		}
	}
	v.Emulator = emutest.Options(t)
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := v.Run(ctx, dir, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var res Validation
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if want := wantSpec(t, dir, "pagecache(twin-test,size=256MiB"); res.Spec != want || res.Profile != "twin-test" {
		t.Errorf("spec %s, profile %s; want spec %s", res.Spec, res.Profile, want)
	}
	names := map[string]bool{}
	for _, m := range res.Metrics {
		names[m.Name] = true
		if m.Name == "tps" && (m.Real <= 0 || m.Emulated <= 0) {
			t.Errorf("tps: %+v", m)
		}
	}
	for _, n := range []string{"tps", "p50_ms", "p95_ms", "p99_ms", "writes_per_tx"} {
		if !names[n] {
			t.Errorf("no %s in %+v", n, res.Metrics)
		}
	}
	if len(res.Runs) != 2 || res.Runs[0].Side != Real || res.Runs[1].Side != Emulated {
		t.Errorf("runs %+v", res.Runs)
	}
	if _, err := os.Stat(filepath.Join(out, ResultFile)); err != nil {
		t.Error(err)
	}
	// the real side's database is gone from the directory under test
	if m, _ := filepath.Glob(filepath.Join(dir, ".tierbench-validate-*")); len(m) > 0 {
		t.Errorf("left in %s: %v", dir, m)
	}
}

// wantSpec is the emulated side's spec for dir: the spec so far, then the readahead
// of dir's device if sysfs gives it, and the closing parenthesis.
func wantSpec(t *testing.T, dir, spec string) string {
	t.Helper()
	w, err := Locate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if kib := w.ReadAheadKiB; kib != nil {
		spec += fmt.Sprintf(",readahead=%dKiB", *kib)
	}
	return spec + ")"
}

// TestReadAheadKiB reads read_ahead_kb from a sysfs of our own.
func TestReadAheadKiB(t *testing.T) {
	sys := t.TempDir()
	for dev, text := range map[string]string{"vda": "8192\n", "loop0": "0\n", "sdb": "lots\n", "sdc": "-4\n"} {
		q := filepath.Join(sys, dev, "queue")
		if err := os.MkdirAll(q, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(q, "read_ahead_kb"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		dev  string
		kib  int64
		isOK bool
	}{{"vda", 8192, true}, {"loop0", 0, true}, {"sdb", 0, false}, {"sdc", 0, false}, {"sdz", 0, false}, {"", 0, false}} {
		if kib, ok := readAheadKiB(sys, tt.dev); kib != tt.kib || ok != tt.isOK {
			t.Errorf("%q: %d, %v; want %d, %v", tt.dev, kib, ok, tt.kib, tt.isOK)
		}
	}
}

// TestValidateSpecReadahead: the emulated side's page cache reads ahead as much as the
// host does on the device under DIR.
func TestValidateSpecReadahead(t *testing.T) {
	dir := t.TempDir()
	v := NewValidateSettings()
	for name, value := range map[string]string{"profile": "testdata/twin.yaml", "cases": "oltp-sqlite",
		"out": filepath.Join(t.TempDir(), "v"), "work": t.TempDir(), "page-cache": "256MiB", "emulator": "fuse"} {
		if err := v.Params().Set(name, value); err != nil {
			t.Fatal(err)
		}
	}
	opts, err := v.options(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := wantSpec(t, dir, "pagecache(twin-test,size=256MiB"); opts.Spec != want {
		t.Errorf("spec %s, want %s", opts.Spec, want)
	}
}

// TestValidateRefusesBadInput: each bad directory or flag is one line that names it
// and says what would do, before anything runs.
func TestValidateRefusesBadInput(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	shm, err := os.MkdirTemp("/dev/shm", "twin-test-")
	if err != nil {
		t.Fatalf("no /dev/shm: %v", err)
	}
	defer os.RemoveAll(shm)
	for _, c := range []struct {
		name, dir string
		flags     map[string]string
		want      string
	}{
		{"memory file system", shm, nil, "is on tmpfs, a file system in memory: there is no device under it to fit"},
		{"no such directory", filepath.Join(t.TempDir(), "nope"), nil, "no such directory: give a directory on the device to measure"},
		{"not a directory", file, nil, file + " is not a directory: give a directory on the device"},
		{"read-only", readOnlyDir(t), nil, "is not writable"},
		{"bad case", t.TempDir(), map[string]string{"cases": "oltp-oracle"}, "--cases oltp-oracle: give WORKLOAD-ENGINE"},
		{"no rounds", t.TempDir(), map[string]string{"rounds": "0"}, "--rounds 0: give 1 to 20 rounds"},
		{"profile not a profile", t.TempDir(), map[string]string{"profile": "validate_test.go"}, "--profile validate_test.go is not a device profile"},
		{"work missing", t.TempDir(), map[string]string{"profile": "testdata/twin.yaml", "work": "/nonexistent/work"}, "--work /nonexistent/work: no such directory"},
		{"MariaDB on tmpfs", t.TempDir(), map[string]string{"profile": "testdata/twin.yaml", "work": shm, "cases": "oltp-mysql", "emulator": "preload"},
			"--work " + shm + " is on tmpfs, where MariaDB maps its redo log into memory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := NewValidateSettings()
			flags := map[string]string{"out": filepath.Join(t.TempDir(), "v"), "page-cache": "64MiB"}
			for k, val := range c.flags {
				flags[k] = val
			}
			for k, val := range flags {
				if err := v.Params().Set(k, val); err != nil {
					t.Fatal(err)
				}
			}
			err := v.Run(context.Background(), c.dir, &bytes.Buffer{}, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line with %q", err, c.want)
			}
		})
	}
	// the refused tmpfs work directory is not left behind
	if m, _ := filepath.Glob(filepath.Join(shm, "tierbench-validate-*")); len(m) > 0 {
		t.Errorf("left in %s: %v", shm, m)
	}
}
