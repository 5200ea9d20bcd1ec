package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/params"
	"tierbench/internal/result"
	"tierbench/internal/workload"
	_ "tierbench/internal/workload/all"
)

// TestRegistry: the four workloads are registered with their phases, each phase has
// its implementation, and no parameter of a phase shares its name with a run setting;
// files, the Postmark-compatible workload's old name, still names it.
func TestRegistry(t *testing.T) {
	want := map[string][]workload.Phase{"postmark": {"run"}, "oltp": {"load", "run"}, "tpcc": {"load", "run", "check"}, "tpch": {"run"}}
	if got := workload.Names(); !slices.Equal(got, []string{"oltp", "postmark", "tpcc", "tpch"}) {
		t.Fatalf("workloads %v", got)
	}
	if m, err := workload.Get("files"); err != nil || m.Name != "postmark" {
		t.Errorf("files: %s, %v; want postmark", m.Name, err)
	}
	for name, phases := range want {
		m, err := workload.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		var got []workload.Phase
		for _, pm := range m.Phases {
			got = append(got, pm.Phase)
			own, settings, err := ParamSets(name, pm.Phase)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range own.Params() {
				if settings.Lookup(p.Name) != nil {
					t.Errorf("%s %s: --%s is both a parameter and a run setting", name, pm.Phase, p.Name)
				}
			}
			var implemented bool
			switch w := m.New(); pm.Phase {
			case workload.Load:
				_, implemented = w.(workload.Loader)
			case workload.Run:
				_, implemented = w.(workload.Runner)
			case workload.Check:
				_, implemented = w.(workload.Checker)
			}
			if !implemented {
				t.Errorf("%s has no %s", name, pm.Phase)
			}
		}
		if !slices.Equal(got, phases) {
			t.Errorf("%s phases %v, want %v", name, got, phases)
		}
	}
	if _, err := workload.Get("tpce"); err == nil || err.Error() != `unknown workload "tpce": valid workloads are oltp, postmark, tpcc, tpch` {
		t.Errorf("unknown workload: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering tpch twice did not panic")
		}
	}()
	m, _ := workload.Get("tpch")
	workload.Register(m)
}

// TestParamSets: the parameters a study may set, with their kinds and defaults.
func TestParamSets(t *testing.T) {
	own, settings, err := ParamSets("tpcc", workload.Run)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		set  *params.Set
		name string
		kind params.Kind
		def  string
	}{
		{own, "users", params.Users, "1"},
		{own, "duration", params.Duration, "1m0s"},
		{own, "mix", params.Enum, "default"},
		{own, "seed", params.Seed, "1"},
		{settings, "engine", params.Enum, "sqlite"},
		{settings, "buffer", params.Size, ""},
		{settings, "tier", params.Array, "[]"},
		{settings, "grid-intensity", params.Float, "475"},
		{settings, "ignore-limits", params.Bool, "false"},
	} {
		p := tc.set.Lookup(tc.name)
		if p == nil || p.Kind != tc.kind || p.Default != tc.def || p.Help == "" {
			t.Errorf("--%s: %+v, want kind %s default %q", tc.name, p, tc.kind, tc.def)
		}
	}
	if own, settings, _ := ParamSets("tpcc", workload.Check); len(own.Params()) != 0 || settings.Lookup("ignore-limits") != nil || settings.Lookup("cpu-watts") != nil {
		t.Error("tpcc check has parameters, --ignore-limits or energy flags")
	}
	if _, settings, _ := ParamSets("files", workload.Run); settings.Lookup("engine") != nil || settings.Lookup("dir") == nil || settings.Lookup("wal") != nil {
		t.Error("files run has engine settings, or no --dir")
	}
}

// sample is a value of kind p.Kind other than its default.
func sample(p *params.Param) []string {
	switch p.Name { // text that is parsed as it is set
	case "cpu-watts":
		return []string{"12.5,125"}
	case "sample":
		return []string{"250ms"}
	}
	switch p.Kind {
	case params.Int:
		return []string{"3"}
	case params.Seed:
		return []string{"0101"}
	case params.Float:
		return []string{"0.25"}
	case params.Duration:
		return []string{"90s"}
	case params.Size:
		return []string{"2MiB"}
	case params.Enum:
		for _, c := range p.Choices {
			if c != p.Default {
				return []string{c}
			}
		}
	case params.Bool:
		return []string{"true"}
	case params.List:
		return []string{"a.yaml", "b,c.yaml"}
	case params.Array:
		return []string{"a=1", "b=x,y"}
	case params.Users:
		return []string{"1", "8"}
	}
	return []string{"x y"}
}

// TestCommandArgsRoundTrip: a study that runs a cell as a child process gives it
// CommandArgs; parsed as the command line parses them, they set every parameter of
// every workload's every phase, and every run setting, to what the spec said.
func TestCommandArgsRoundTrip(t *testing.T) {
	for _, name := range workload.Names() {
		m, _ := workload.Get(name)
		for _, pm := range m.Phases {
			own, settings, err := ParamSets(name, pm.Phase)
			if err != nil {
				t.Fatal(err)
			}
			values := map[string][]string{}
			for _, set := range []*params.Set{own, settings} {
				for _, p := range set.Params() {
					values[p.Name] = sample(p)
				}
			}
			spec := Spec{Workload: name, Phases: []workload.Phase{pm.Phase}, Values: values}
			args, err := CommandArgs(spec)
			if err != nil {
				t.Fatalf("%s %s: %v", name, pm.Phase, err)
			}
			if len(args) != 1 || args[0][0] != name || args[0][1] != string(pm.Phase) {
				t.Fatalf("%s %s: args %q", name, pm.Phase, args)
			}
			j, err := NewJob(spec)
			if err != nil {
				t.Fatal(err)
			}
			fresh := newTemplate(t, name, pm.Phase)
			if err := fresh.fs.Parse(args[0][2:]); err != nil {
				t.Fatalf("%s %s: %q: %v", name, pm.Phase, args[0], err)
			}
			for _, set := range []*params.Set{j.phases[0].own, j.phases[0].settings.Params()} {
				for _, p := range set.Params() {
					back := fresh.lookup(p.Name)
					if !p.Changed() || !back.Changed() || !slices.Equal(back.Values(), p.Values()) {
						t.Errorf("%s %s --%s: %q came back as %q", name, pm.Phase, p.Name, p.Values(), back.Values())
					}
				}
			}
		}
	}
}

// template is a phase's parameters and settings in one flag set, as a command has
// them.
type template struct {
	fs   *pflag.FlagSet
	sets []*params.Set
}

func newTemplate(t *testing.T, name string, p workload.Phase) *template {
	own, settings, err := ParamSets(name, p)
	if err != nil {
		t.Fatal(err)
	}
	tp := &template{fs: pflag.NewFlagSet(name, pflag.ContinueOnError), sets: []*params.Set{own, settings}}
	for _, s := range tp.sets {
		tp.fs.AddFlagSet(s.FlagSet())
	}
	return tp
}

func (tp *template) lookup(name string) *params.Param {
	for _, s := range tp.sets {
		if p := s.Lookup(name); p != nil {
			return p
		}
	}
	return nil
}

// TestValidate: a spec is checked whole without running anything, every error naming
// the flag (or the workload, phase or parameter that does not exist).
func TestValidate(t *testing.T) {
	out := t.TempDir()
	var shared Validator
	for _, tc := range []struct {
		name string
		spec Spec
		want string
	}{
		{"ok", Spec{Workload: "tpcc", Phases: []workload.Phase{"load", "run", "check"}, Values: map[string][]string{"out": {out}, "warehouses": {"2"}, "users": {"1", "4"}}}, ""},
		{"ok without an engine", Spec{Workload: "files", Phases: []workload.Phase{"run"}, Values: map[string][]string{"out": {out}, "dir": {out}, "preset": {"low"}}}, ""},
		{"unknown workload", Spec{Workload: "tpce", Phases: []workload.Phase{"run"}}, `unknown workload "tpce"`},
		{"no phase", Spec{Workload: "tpch"}, "tpch: no phase given: tpch has run"},
		{"unknown phase", Spec{Workload: "tpch", Phases: []workload.Phase{"load"}}, `tpch has no phase "load": it has run`},
		{"unknown parameter", Spec{Workload: "tpch", Phases: []workload.Phase{"run"}, Values: map[string][]string{"warehouses": {"2"}}}, "--warehouses: tpch run has no such parameter"},
		{"a value that does not parse", Spec{Workload: "tpcc", Phases: []workload.Phase{"run"}, Values: map[string][]string{"duration": {"5 minutes"}}}, `invalid argument "5 minutes" for "--duration" flag`},
		{"a value out of range", Spec{Workload: "tpcc", Phases: []workload.Phase{"load"}, Values: map[string][]string{"out": {out}, "warehouses": {"0"}}}, "--warehouses 0: give 1 to"},
		{"a setting the engine cannot have", Spec{Workload: "tpcc", Phases: []workload.Phase{"run"}, Values: map[string][]string{"out": {out}, "wal": {"hdd-7200"}}}, "--wal hdd-7200: SQLite keeps its WAL"},
		// What SQLite would ignore or misread fails validation, not the cell that opens it
		// (docs/engines.md, "Settings: --set").
		{"a setting SQLite does not have", Spec{Workload: "tpcc", Phases: []workload.Phase{"run"}, Values: map[string][]string{"out": {out}, "set": {"work_mem=64MB"}}},
			"--set work_mem=64MB on sqlite: no such setting: SQLite's settings are its PRAGMAs"},
		{"a PRAGMA SQLite would read as 0", Spec{Workload: "tpcc", Phases: []workload.Phase{"run"}, Values: map[string][]string{"out": {out}, "set": {"cache_size=abc"}}},
			"--set cache_size=abc on sqlite: give an integer"},
		{"a PRAGMA SQLite takes", Spec{Workload: "tpcc", Phases: []workload.Phase{"run"}, Values: map[string][]string{"out": {out}, "set": {"synchronous=normal", "cache_size=-4000"}}}, ""},
		// A meter file that is not there would be found missing only after the run.
		{"a power meter file that is not there", Spec{Workload: "tpcc", Phases: []workload.Phase{"run"}, Values: map[string][]string{"out": {out}, "power-meter": {filepath.Join(out, "no-meter.csv")}}},
			"--power-meter " + filepath.Join(out, "no-meter.csv") + ": no such file: give a file of (time, watts) readings that is there before the run starts"},
		{"a power meter that is a directory", Spec{Workload: "tpcc", Phases: []workload.Phase{"run"}, Values: map[string][]string{"out": {out}, "power-meter": {out}}},
			"--power-meter " + out + ": not a regular file but a directory"},
		{"required", Spec{Workload: "oltp", Phases: []workload.Phase{"run"}, Values: map[string][]string{"out": {out}}}, `required flag(s) "mix" not set`},
		{"no out", Spec{Workload: "tpch", Phases: []workload.Phase{"run"}, Values: map[string][]string{"sf": {"0.01"}}}, "--out is required"},
		{"one phase's value", Spec{Workload: "tpcc", Phases: []workload.Phase{"load", "run"}, Values: map[string][]string{"out": {out}, "run.seed": {"x"}}}, `invalid argument "x" for "--seed" flag`},
		{"a phase that has not the value", Spec{Workload: "tpcc", Phases: []workload.Phase{"load", "run"}, Values: map[string][]string{"load.users": {"2"}}}, "--users: tpcc load has no such parameter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.spec)
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
			// A Validator that has read the other cases' inputs says the same.
			if verr := shared.Validate(tc.spec); (verr == nil) != (err == nil) || err != nil && verr.Error() != err.Error() {
				t.Errorf("a Validator says %v, Validate %v", verr, err)
			}
		})
	}
}

// TestValidatorReadsOnce: a Validator reads the device profiles of a --profiles once
// for every spec that gives it, yet each spec's own values are still checked.
func TestValidatorReadsOnce(t *testing.T) {
	out, profiles := t.TempDir(), t.TempDir()
	src, err := os.ReadFile("../device/profiles/sata-ssd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(profiles, "mine.yaml")
	if err := os.WriteFile(mine, []byte(strings.Replace(string(src), "name: sata-ssd", "name: mine", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := func(data string) Spec {
		return Spec{Workload: "tpcc", Phases: []workload.Phase{"load"}, Values: map[string][]string{"out": {out}, "profiles": {profiles}, "data": {data}}}
	}
	var v Validator
	if err := v.Validate(spec("mine")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(mine); err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(spec("pagecache(mine,size=64MiB)")); err != nil {
		t.Errorf("the second spec read the profiles again: %v", err)
	}
	if err := v.Validate(spec("hdd-9000")); err == nil || !strings.Contains(err.Error(), `--data hdd-9000: not a tier`) {
		t.Errorf("an unknown profile: %v", err)
	}
	if err := Validate(spec("mine")); err == nil {
		t.Error("Validate, without the Validator, found the removed profile")
	}
	// What Prepare answered is kept for specs that repeat a phase's own values, not
	// for every spec: each answer holds its phase's workload.
	for w := 1; w <= 3*maxPrepared; w++ {
		s := spec("sata-ssd")
		s.Values["warehouses"] = []string{fmt.Sprint(w)}
		if err := v.Validate(s); err != nil {
			t.Fatal(err)
		}
	}
	if len(v.requests) > maxPrepared {
		t.Errorf("the Validator keeps %d answers, more than %d", len(v.requests), maxPrepared)
	}
}

// counted is a phase's workload that counts its checks (Prepare) and runs the phase.
type counted struct {
	workload.Workload
	prepared int
}

func (c *counted) Prepare(p workload.Phase) (workload.Request, error) {
	c.prepared++
	return c.Workload.Prepare(p)
}

func (c *counted) Load(ctx context.Context, env workload.Env) (*workload.Report, error) {
	return c.Workload.(workload.Loader).Load(ctx, env)
}

func (c *counted) Run(ctx context.Context, env workload.Env) (*workload.Report, error) {
	return c.Workload.(workload.Runner).Run(ctx, env)
}

// TestExecuteMix: a load and a run of a mix in one execution, as a study's cell, with
// each phase's headline numbers and status in the outcome, and a seed for one phase.
// Each phase has a workload of its own, checked once (Prepare), and the buffer given
// as text reaches the engine as the bytes it was parsed into: SQLite's cache_size is
// -KiB, so 3MiB is -3072.
func TestExecuteMix(t *testing.T) {
	out := t.TempDir()
	j, err := NewJob(Spec{Workload: "oltp", Phases: []workload.Phase{workload.Load, workload.Run},
		Values: map[string][]string{"out": {out}, "mix": {"point-select"}, "scale": {"0.001"}, "load.seed": {"7"},
			"ramp": {"0s"}, "duration": {"1s"}, "interval": {"1s"}, "buffer": {"3MiB"}}})
	if err != nil {
		t.Fatal(err)
	}
	if j.phases[0].w == j.phases[1].w {
		t.Fatal("the load and the run share a workload: what one's Prepare read, the other's overwrites")
	}
	phases := make([]*counted, len(j.phases))
	for i, ph := range j.phases {
		phases[i] = &counted{Workload: ph.w}
		ph.w = phases[i]
	}
	o, err := j.Execute(context.Background(), IO{})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range phases {
		if c.prepared != 1 {
			t.Errorf("%s was checked %d times, want once", j.phases[i].phase, c.prepared)
		}
		if e := j.phases[i].cfg.Engine; e.BufferBytes != 3<<20 {
			t.Errorf("%s: buffer %d bytes, want %d", j.phases[i].phase, e.BufferBytes, 3<<20)
		}
	}
	run, err := metrics.ReadJSONFile[struct {
		Engine engine.Info `json:"engine"`
	}](filepath.Join(out, "result.json"))
	if err != nil || run.Engine.Settings["cache_size"] != "-3072" {
		t.Errorf("the engine ran with cache_size %q (%v), want -3072", run.Engine.Settings["cache_size"], err)
	}
	if len(o.Phases) != 2 || o.Phases[0].Phase != workload.Load || o.Phases[0].File != filepath.Join(out, "oltp-load.json") || o.Phases[1].File != filepath.Join(out, "result.json") {
		t.Fatalf("outcome %+v", o)
	}
	if s, why := o.Status(); s != result.StatusOK || why != "" {
		t.Errorf("status %s %q", s, why)
	}
	m := o.Metrics()
	if len(m) != 2 || m[0].Name != "tps" || m[0].Value <= 0 || m[0].Better != result.HigherIsBetter || m[1].Name != "qps" || m[1].Value < m[0].Value {
		t.Errorf("headline %+v", m)
	}
	if w := o.Phases[1].Result.(result.Attached).ResultSections().Energy.Window("1 user"); w == nil || w.Seconds <= 0 {
		t.Errorf("no energy window for the level of 1 user")
	}
	if lm := o.Phases[0].Metrics; len(lm) != 1 || lm[0].Name != "load_s" || lm[0].Value <= 0 {
		t.Errorf("load headline %+v", lm)
	}
	// Sampled by default: the run's level is a window of the monitor, judged, and the
	// load has monitoring files of its own.
	sec := o.Phases[1].Result.(result.Attached).ResultSections()
	if sec.Monitoring == nil || sec.Monitoring.Level(1) == nil || sec.Verdict == nil || sec.Verdict.Level(1) == nil || sec.Verdict.Window != "1 user" {
		t.Errorf("monitoring %+v, verdict %+v: want the level of 1 user sampled and judged", sec.Monitoring, sec.Verdict)
	}
	if lsec := o.Phases[0].Result.(result.Attached).ResultSections(); lsec.Monitoring == nil || lsec.Monitoring.File != "load-metrics.jsonl" {
		t.Errorf("the load's monitoring %+v: want it in load-metrics.jsonl", lsec.Monitoring)
	}
	for _, f := range []string{"metrics.jsonl", "metrics.csv", "load-metrics.jsonl", "load-metrics.csv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// The CPU's energy (where it is modelled) covers the whole run, at each sample's
	// utilisation.
	en := sec.Energy
	if en == nil || en.Window("run") == nil {
		t.Fatalf("no energy section")
	}
	for _, f := range en.Window("run").Components {
		if f.Name == "cpu" && (f.CoveredS <= 0 || f.Joules <= 0) {
			t.Errorf("the CPU's energy covers none of the run: %+v", f)
		}
	}
}

// TestExecuteInterrupted: a phase cut short by its context ends interrupted, with
// what it measured kept.
func TestExecuteInterrupted(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	o, err := Execute(ctx, Spec{Workload: "files", Phases: []workload.Phase{workload.Run},
		Values: map[string][]string{"out": {out}, "dir": {t.TempDir()}, "preset": {"non-load"}, "idle": {"1m"}}})
	if !errors.Is(err, context.Canceled) || o == nil || len(o.Phases) != 1 {
		t.Fatalf("err %v, outcome %+v", err, o)
	}
	if s, why := o.Status(); s != result.StatusInterrupted || !strings.Contains(why, "kept in "+filepath.Join(out, "result.json")) {
		t.Errorf("status %s %q", s, why)
	}
}

// TestExecuteKeepsCheckpoints: a sweep's result is saved after each level through
// the run's Checkpoint; when the last write, with the sections, fails (a full disk),
// the file holds both levels as the last checkpoint wrote them, and the error says so.
func TestExecuteKeepsCheckpoints(t *testing.T) {
	out := t.TempDir()
	path := filepath.Join(out, "result.json")
	var levels []int
	writeJSON = func(p string, v any) error {
		if p != path {
			return metrics.WriteJSONFile(p, v)
		}
		if len(levels) == 2 {
			return syscall.ENOSPC
		}
		if err := metrics.WriteJSONFile(p, v); err != nil {
			return err
		}
		back, err := metrics.ReadJSONFile[struct{ Levels []any }](p)
		levels = append(levels, len(back.Levels))
		return err
	}
	defer func() { writeJSON = metrics.WriteJSONFile }()
	_, err := Execute(context.Background(), Spec{Workload: "oltp", Phases: []workload.Phase{workload.Load, workload.Run},
		Values: map[string][]string{"out": {out}, "mix": {"point-select"}, "scale": {"0.001"}, "users": {"1,2"},
			"ramp": {"0s"}, "duration": {"1s"}, "interval": {"1s"}, "sample": {"off"}}})
	if err == nil || !strings.Contains(err.Error(), "no space left on device ("+path+" holds what was measured until the last write that succeeded)") {
		t.Fatalf("error %v: want the full disk, and that the checkpoints are kept", err)
	}
	if !slices.Equal(levels, []int{1, 2}) {
		t.Errorf("checkpoints wrote %v levels, want 1 then 2", levels)
	}
	kept, rerr := metrics.ReadJSONFile[map[string]any](path)
	if rerr != nil || kept == nil || (*kept)["tps"] == nil || (*kept)["energy"] != nil {
		t.Errorf("result.json %v (%v): want the last checkpoint, without the sections of the failed last write", kept, rerr)
	}
}
