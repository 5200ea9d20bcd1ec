package study

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/result"
)

// fakeRows is what a fake load writes into its population.
const fakeRows = "rows 42\n"

// fakePopulation acts as a load (args[1] load) or a run of a study with snapshots: a
// load appends its command line to log and leaves a population on its data tier (a
// file, and a link to it by absolute path, as PostgreSQL links its WAL) and its
// record, whose name it returns; a run fails unless it finds the population in its
// own directory and the link pointing into it.
func fakePopulation(args []string, out, log string) (string, error) {
	db := filepath.Join(out, "tiers", "data", "backing", "db")
	file := filepath.Join(db, "population")
	if args[1] == "load" {
		f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return "", err
		}
		fmt.Fprintln(f, strings.Join(args, " "))
		f.Close()
		if err := os.MkdirAll(db, 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(file, []byte(fakeRows), 0o640); err != nil {
			return "", err
		}
		if err := os.Symlink(file, filepath.Join(db, "link")); err != nil {
			return "", err
		}
		record := filepath.Join(out, "oltp-load.json")
		return record, os.WriteFile(record, []byte(`{"mix":"bbs"}`), 0o644)
	}
	got, err := os.ReadFile(file)
	if err != nil || string(got) != fakeRows {
		return "", fmt.Errorf("no population in %s: %v", out, err)
	}
	target, err := filepath.EvalSymlinks(filepath.Join(db, "link"))
	if err != nil || target != file {
		return "", fmt.Errorf("the population's link points to %s (%v), not into %s", target, err, out)
	}
	if _, err := os.Stat(filepath.Join(out, "oltp-load.json")); err != nil {
		return "", fmt.Errorf("no load record: %v", err)
	}
	return "", nil
}

const snapStudy = `name: snap
workload: oltp
params: {mix: bbs, scale: 0.001, ramp: 0s, duration: 1s, data: sata-ssd}
factors:
  users: [1, 2]
  think: [0s, 10ms]
repetitions: 2
snapshot: true
`

// TestPopulations: cells that differ only in what follows the load (users, think)
// or in the device a tier emulates share a population; a value that changes the
// files (scale, buffer) makes another; the snapshot's load has every emulated tier on
// the null device; cells that cannot reuse a load say why, and a study where none
// can is refused at its snapshot field.
func TestPopulations(t *testing.T) {
	p := mustExpand(t, snapStudy, "")
	keys := map[string]bool{}
	for _, c := range p.Cells {
		pop := p.Populations[c.ID]
		if pop == nil || pop.Refused != "" {
			t.Fatalf("cell %s: %+v", c.ID, pop)
		}
		keys[pop.Key] = true
	}
	pop := p.Populations[p.Cells[0].ID]
	if len(keys) != 1 || pop.Engine != "sqlite" || !slices.Equal(pop.Values["data"], []string{"null"}) ||
		pop.Values["users"] != nil || !slices.Equal(pop.Values["scale"], []string{"0.001"}) {
		t.Errorf("populations %v, the load %+v: want one, on null, without the run's values", keys, pop)
	}
	if !strings.Contains(p.snapshotText(), "1 population, loaded once on null devices") {
		t.Errorf("plan: %q", p.snapshotText())
	}

	devices := mustExpand(t, strings.Replace(strings.Replace(snapStudy, "data: sata-ssd}", "tier: [fast=nvme]}", 1),
		"factors:\n", "factors:\n  data: [fast, hdd-7200, \"pagecache(sata-ssd,size=16MiB)\"]\n", 1), "")
	keys = map[string]bool{}
	for _, c := range devices.Cells {
		keys[devices.Populations[c.ID].Key] = true
	}
	if len(keys) != 2 { // data on tier fast, or on a tier of its own named data
		t.Errorf("three devices on two tier names: %d populations, want 2", len(keys))
	}
	if v := devices.Populations[devices.Cells[0].ID].Values; !slices.Equal(v["tier"], []string{"fast=null"}) || !slices.Equal(v["data"], []string{"fast"}) {
		t.Errorf("a tier by name: %v", v)
	}

	for _, factor := range []string{"  scale: [0.001, 0.002]\n", "  buffer: [8MB, 16MB]\n"} {
		q := mustExpand(t, strings.Replace(strings.Replace(snapStudy, "scale: 0.001, ", "", 1), "factors:\n", "factors:\n"+factor, 1), "")
		keys = map[string]bool{}
		for _, c := range q.Cells {
			keys[q.Populations[c.ID].Key] = true
		}
		if len(keys) != 2 {
			t.Errorf("%s: %d populations, want 2", strings.TrimSpace(factor), len(keys))
		}
	}

	dir := t.TempDir()
	for _, c := range []struct{ name, src, want string }{
		{"tpch", "name: t\nworkload: tpch\nparams: {sf: 0.01}\nfactors:\n  streams: [1, 2]\nsnapshot: true\n",
			"test.yaml:6: snapshot: no cell can reuse a load: tpch has no load phase of its own: its load is part of its run and of what it measures (TPC-H's load test is inside `tpch run`); remove snapshot"},
		{"the load only", "name: t\nworkload: oltp\nphases: [load]\nparams: {mix: bbs}\nfactors:\n  scale: [0.001, 0.002]\nsnapshot: true\n",
			"test.yaml:7: snapshot: no cell can reuse a load: the cells run their load only: the load is what they measure; remove snapshot"},
		{"no load", "name: t\nworkload: oltp\nphases: [run]\nparams: {mix: bbs}\nfactors:\n  users: [1, 2]\nsnapshot: true\n",
			"no cell can reuse a load: the cells run no load phase (phases: run)"},
		{"an external server", "name: t\nworkload: oltp\nparams: {mix: bbs, engine: postgres, dsn: \"postgres://x@h/db\"}\nfactors:\n  users: [1, 2]\nsnapshot: true\n",
			"no cell can reuse a load: --dsn names a database that is not the study's to copy"},
		{"a directory of yours", "name: t\nworkload: oltp\nparams: {mix: bbs, data: " + dir + "}\nfactors:\n  users: [1, 2]\nsnapshot: true\n",
			"no cell can reuse a load: tier data is a directory of yours (" + dir + "): a snapshot is copied onto emulated devices only"},
		{"not a bool", "name: t\nworkload: oltp\nparams: {mix: bbs}\nsnapshot: maybe\n",
			`test.yaml:4: snapshot: "maybe": give true (load each population once and copy it to every run that uses it) or false`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := expand(t, c.src, ""); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
		})
	}

	// Some cells can, some cannot: those say why in the plan's notes.
	some := mustExpand(t, `name: t
factors:
  benchmark:
    - {label: bbs, workload: oltp, mix: bbs, scale: 0.001}
    - {label: h, workload: tpch, sf: 0.01}
snapshot: true
`, "")
	if pop := some.Populations["benchmark=bbs"]; pop == nil || pop.Refused != "" {
		t.Errorf("the oltp cell: %+v", pop)
	}
	if note := strings.Join(some.Notes, "\n"); !strings.Contains(note, "snapshot: 1 cells load in each of their runs: tpch has no load phase of its own") ||
		!strings.Contains(note, "(benchmark=h)") {
		t.Errorf("notes %q", some.Notes)
	}
}

// TestRunnerSnapshot: a study with snapshots loads its one population once, copies
// it into every run before the run's command (a link into the snapshot pointing into
// the run), records the reuse in cell.json, and removes the snapshot once every run
// has finished; a snapshot of another engine version is loaded again, and a load
// that fails fails the runs that need it, with its cause.
func TestRunnerSnapshot(t *testing.T) {
	p := mustExpand(t, snapStudy, "")
	key := p.Populations[p.Cells[0].ID].Key
	out := t.TempDir()
	log := filepath.Join(t.TempDir(), "loads")
	tally, err := fakeRunner(p, out, fakeSnapshotEnv+"="+log).Run(context.Background())
	if err != nil || tally.OK != 8 || tally.Failed != 0 {
		t.Fatalf("run: %+v, %v", tally, err)
	}
	loads, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(loads)), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "oltp load") || !strings.Contains(lines[0], "--data=null") ||
		!strings.Contains(lines[0], "--out="+snapshotDir(out, key)) || strings.Contains(lines[0], "--users") {
		t.Fatalf("loads: %q, want one, on the null device, into the snapshot", lines)
	}
	var dry strings.Builder
	r := fakeRunner(p, t.TempDir())
	r.Stdout = &dry
	if err := r.DryRun(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  snapshot   1 population, loaded once on null devices", "    (the population of snapshots/" + key + ", copied onto the run's tiers before its commands)\n    tierbench oltp run",
		"snapshots (1), each loaded once (by the first run that needs it) with:\n  " + key + ", for users=1,think=0s, users=1,think=10ms, users=2,think=0s, users=2,think=10ms\n    tierbench oltp load --mix=bbs --scale=0.001 --out="} {
		if !strings.Contains(dry.String(), want) {
			t.Errorf("dry run: no %q in\n%s", want, dry.String())
		}
	}
	made := 0
	version, _ := engine.InstalledVersion("sqlite")
	for _, c := range p.Cells {
		for rep := 1; rep <= 2; rep++ {
			r := readRun(t, out, c.ID, rep)
			l := r.Load
			if r.Status != result.StatusOK || l == nil || len(r.Phases) != 1 || r.Phases[0].Phase != "run" {
				t.Fatalf("%s rep %d: %s %q, load %+v, phases %+v", c.ID, rep, r.Status, r.Error, l, r.Phases)
			}
			if l.Made {
				made++
			}
			if l.Snapshot != filepath.Join(SnapshotsDir, key) || l.Bytes != int64(len(fakeRows))+int64(len(`{"mix":"bbs"}`)) || l.Files != 3 ||
				l.Engine != "sqlite" || l.EngineVersion != version || l.Replaced != "" {
				t.Errorf("%s rep %d: load %+v", c.ID, rep, l)
			}
		}
	}
	if made != 1 {
		t.Errorf("%d runs made the snapshot, want 1", made)
	}
	if _, err := os.Stat(filepath.Join(out, SnapshotsDir)); !os.IsNotExist(err) {
		t.Errorf("the snapshots stay after every run finished: %v", err)
	}

	// Another engine version's snapshot is not used: the population is loaded again.
	more := mustExpand(t, strings.Replace(snapStudy, "repetitions: 2", "repetitions: 3", 1), "")
	sdir := snapshotDir(out, key)
	if err := os.MkdirAll(sdir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := SnapshotRecord{Key: key, Workload: "oltp", Engine: "sqlite", EngineVersion: "3.0.0", Values: more.Populations[more.Cells[0].ID].Values, Dir: sdir}
	if err := metrics.WriteJSONFile(filepath.Join(sdir, SnapshotFile), old); err != nil {
		t.Fatal(err)
	}
	if tally, err := fakeRunner(more, out, fakeSnapshotEnv+"="+log).Run(context.Background()); err != nil || tally.OK != 4 {
		t.Fatalf("third repetitions: %+v, %v", tally, err)
	}
	replaced := 0
	for _, c := range more.Cells {
		if l := readRun(t, out, c.ID, 3).Load; l != nil && strings.Contains(l.Replaced, `it was loaded into sqlite "3.0.0", this host runs "`+version+`"`) {
			replaced++
		}
	}
	if replaced != 1 {
		t.Errorf("%d runs say the old snapshot was replaced, want the 1 that loaded again", replaced)
	}

	// A load that fails fails each run that needs it, and the study goes on.
	out = t.TempDir()
	tally, err = fakeRunner(p, out, fakeSnapshotEnv+"="+log, fakeFailEnv+"="+SnapshotsDir).Run(context.Background())
	if err != nil || tally.Failed != 8 {
		t.Fatalf("failing load: %+v, %v", tally, err)
	}
	failed := readRun(t, out, p.Cells[0].ID, 1)
	want := "load: snapshot " + filepath.Join(SnapshotsDir, key) + ": exit status 1: the fake phase failed on purpose"
	if failed.Status != result.StatusFailed || failed.Error != want {
		t.Errorf("failed load recorded as %s %q, want %q", failed.Status, failed.Error, want)
	}
}
