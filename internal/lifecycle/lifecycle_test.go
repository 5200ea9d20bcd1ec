package lifecycle

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tierbench/internal/energy"
	"tierbench/internal/metrics"
	"tierbench/internal/params"
	"tierbench/internal/result"
	"tierbench/internal/rundir"
	"tierbench/internal/workload"
)

// settingsFor parses a command line of run settings.
func settingsFor(t *testing.T, opts Options, args ...string) *Settings {
	t.Helper()
	s := NewSettings(opts)
	if err := s.Params().FlagSet().Parse(args); err != nil {
		t.Fatal(err)
	}
	return s
}

// startFor configures s for a phase that asks req and starts it, as a job does.
func startFor(t *testing.T, s *Settings, req workload.Request, out IO) (*Run, error) {
	t.Helper()
	cfg, err := s.Config(req)
	if err != nil {
		return nil, err
	}
	return s.start(context.Background(), req, cfg, out, nil)
}

var engineOpts = Options{Engine: true, Estimates: true, Sections: true, OutWhat: "the directory for results"}

// TestSettingsRefuseWithoutRunning: every mistake in the settings is one line naming
// the flag, found when the value is set (it does not parse) or by Config (it does not
// go with the others), with nothing created or started.
func TestSettingsRefuseWithoutRunning(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		name string
		opts Options
		args []string
		want string
	}{
		{"no out", engineOpts, nil, "--out is required: the directory for results"},
		{"unknown engine", engineOpts, []string{"--engine", "oracle"}, `--engine "oracle": unknown engine: valid engines are mysql, postgres, sqlite`},
		{"bad buffer", engineOpts, []string{"--buffer", "huge"}, `--buffer "huge" is not a size`},
		{"buffer below mariadb's least", engineOpts, []string{"--engine", "mysql", "--buffer", "5MB"}, "--buffer: mariadb needs a buffer of at least 6 MiB, got 5 MiB: InnoDB refuses"},
		{"set on external", engineOpts, []string{"--engine", "postgres", "--dsn", "postgres://x@h/db", "--set", "a=1"}, "never does on an external server"},
		{"bad set", engineOpts, []string{"--set", "work_mem"}, `--set "work_mem": give name=value`},
		{"bad client io", engineOpts, []string{"--client-io", "fibers"}, `--client-io "fibers": give auto, thread or poller`},
		{"bad flush method", engineOpts, []string{"--flush-method", "sometimes"}, `--flush-method "sometimes"`},
		{"sqlite direct", engineOpts, []string{"--flush-method", "direct"}, "--flush-method direct: SQLite has no direct I/O"},
		{"flush method on external", engineOpts, []string{"--engine", "mysql", "--dsn", "u@tcp(h)/d", "--flush-method", "direct"}, "--flush-method changes server settings"},
		{"sqlite wal apart", engineOpts, []string{"--tier", "a=hdd-7200", "--tier", "b=sata-ssd", "--data", "a", "--wal", "b"}, "--wal b: SQLite keeps its WAL"},
		{"placed on external", engineOpts, []string{"--engine", "postgres", "--dsn", "postgres://x@h/db", "--data", "hdd-7200"}, "an external server (--dsn) keeps its files"},
		{"db and data", engineOpts, []string{"--db", dir, "--data", "hdd-7200"}, "--data hdd-7200 both say where the database goes"},
		{"unknown profile", engineOpts, []string{"--tier", "x=hdd-9000", "--data", "x"}, `--tier x=hdd-9000: unknown device profile "hdd-9000"`},
		{"negative grid", engineOpts, []string{"--grid-intensity", "-1"}, "--grid-intensity -1"},
		{"bad emulator", engineOpts, []string{"--emulator", "mmap", "--data", "hdd-7200"}, `--emulator "mmap": give fuse`},
		{"trace without emulation", engineOpts, []string{"--record-trace"}, "--record-trace records the requests of emulated tiers"},
		{"sample 0", engineOpts, []string{"--sample", "0"}, "--sample 0: give how often to sample, above 0"},
		{"sample too often", engineOpts, []string{"--sample", "1ms"}, "--sample 1ms: sample at most every 10ms"},
		{"sample not a duration", engineOpts, []string{"--sample", "often"}, `--sample "often": give how often to sample`},
		{"server pid of a managed server", engineOpts, []string{"--server-pid", "1"}, "--server-pid 1: tierbench knows the process of the server it runs"},
		{"negative server pid", engineOpts, []string{"--engine", "postgres", "--dsn", "postgres://x@h/db", "--server-pid", "-3"}, "--server-pid -3: give a process id above 0"},
		{"metrics addr without a port", engineOpts, []string{"--metrics-addr", "localhost"}, `--metrics-addr "localhost": give HOST:PORT`},
		{"cpu watts", engineOpts, []string{"--cpu-watts", "125"}, `--cpu-watts "125": no comma`},
		{"base watts", engineOpts, []string{"--base-watts", "-5"}, "--base-watts -5"},
		{"base watts beyond any host", engineOpts, []string{"--base-watts", "1e308"}, "--base-watts 1e+308: 1e+308 W is more than 100 kW"},
		{"cpu watts beyond any host", engineOpts, []string{"--cpu-watts", "10,1e308"}, `--cpu-watts "10,1e308": max: 1e+308 W is more than 100 kW`},
		{"grid in grams per MWh", engineOpts, []string{"--grid-intensity", "475000"}, "--grid-intensity 475000: give grams of CO2 per kWh, 0 to 2000"},
		{"no directory", Options{}, nil, "--data or --dir is required"},
		{"missing dir", Options{}, []string{"--dir", filepath.Join(dir, "nope")}, "--dir " + filepath.Join(dir, "nope") + ": not an existing directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if tc.name != "no out" {
				args = append(args, "--out", out)
			}
			s := NewSettings(tc.opts)
			err := params.FlagError(s.Params().FlagSet().Parse(args)) // as a command line shows it
			if err == nil {
				_, err = s.Config(workload.Request{})
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line with %q", err, tc.want)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("Config made %s (%v)", out, err)
	}
}

// TestConfigEmulatorPath: --emulator (auto by default) reaches placement with the
// engine whose I/O the path must enter; a workload without an engine names none.
func TestConfigEmulatorPath(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		opts         Options
		args         []string
		path, engine string
	}{
		{engineOpts, []string{"--data", "hdd-7200"}, "auto", "sqlite"},
		{engineOpts, []string{"--emulator", "fuse", "--engine", "postgres", "--data", "hdd-7200"}, "fuse", "postgres"},
		{Options{}, []string{"--emulator", "preload", "--data", "hdd-7200"}, "preload", ""},
	} {
		cfg, err := settingsFor(t, tc.opts, append(tc.args, "--out", out)...).Config(workload.Request{})
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if p := cfg.Placement; p.Emulator.Path != tc.path || p.Engine != tc.engine {
			t.Errorf("%v: path %q for engine %q, want %q for %q", tc.args, p.Emulator.Path, p.Engine, tc.path, tc.engine)
		}
	}
}

// sectioned is a result with the sections, as every workload's embeds them.
type sectioned struct {
	Started time.Time `json:"started"`
	N       int       `json:"n"`
	result.Sections
}

// recorder is a Monitor that remembers what the lifecycle told it, and samples the
// energy at its start and stop, at a utilisation of one half.
type recorder struct {
	calls  []string
	sample func(time.Time, float64) map[string]float64
}

func (m *recorder) Start(_ context.Context, r *Run, sample func(time.Time, float64) map[string]float64) error {
	m.calls = append(m.calls, "start "+filepath.Base(r.Out()))
	m.sample = sample
	sample(time.Now(), math.NaN())
	return nil
}
func (m *recorder) Mark(label string, start bool, _ time.Time) {
	m.calls = append(m.calls, "mark "+label+map[bool]string{true: " start", false: " end"}[start])
}
func (m *recorder) Stop(at time.Time) error {
	m.calls = append(m.calls, "stop")
	m.sample(at, 0.5)
	return nil
}
func (m *recorder) Attach(s *result.Sections) {
	m.calls = append(m.calls, "attach "+map[bool]string{true: "with storage", false: "without storage"}[s.Storage != nil])
}

// TestRunOnSQLite: a run of a phase on SQLite in a directory tier: the output
// directory locked while it runs and the earlier result set aside, the engine open
// on the tier, the monitor told of the run, and at the end the result written with its
// storage and energy sections, the lock gone and the earlier result noted.
func TestRunOnSQLite(t *testing.T) {
	out, tier := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "result.json"), []byte(`{"earlier": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := settingsFor(t, engineOpts, "--out", out, "--data", tier, "--base-watts", "20")
	var stdout, stderr bytes.Buffer
	mon := &recorder{}
	cfg, err := s.Config(workload.Request{Results: []string{"result.json"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Monitor = mon
	r, err := Open(context.Background(), cfg, IO{Stdout: &stdout, Stderr: &stderr, Command: "test run"})
	if err != nil {
		t.Fatal(err)
	}
	var busy *rundir.BusyError
	if _, err := rundir.Acquire(out, "a second command"); !errors.As(err, &busy) || busy.Holder.Command != "test run" {
		t.Errorf("a second command in OUT: %v", err)
	}
	if r.Engine() == nil || r.EngineConfig().Dir != filepath.Join(tier, "db") || r.EngineConfig().Settings["mmap_size"] != "" {
		t.Errorf("engine in %s, settings %v: want the database in the tier and no emulation settings", r.EngineConfig().Dir, r.EngineConfig().Settings)
	}
	if _, err := r.Engine().DB().Exec("CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	r.Mark("window", true)
	r.Mark("window", false)
	res := &sectioned{Started: time.Now().UTC(), N: 7}
	err = r.Finish(&workload.Report{Result: res, File: "result.json", Announce: true,
		Summary: func(w io.Writer) { w.Write([]byte("summary\n")) }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Finish(nil, errors.New("again")) != nil {
		t.Error("a second Finish did not return the first one's result")
	}
	got, err := metrics.ReadJSONFile[sectioned](filepath.Join(out, "result.json"))
	if err != nil || got.N != 7 || got.Storage == nil || len(got.Storage.Tiers) != 1 || got.Storage.Tiers[0].Kind != "directory" {
		t.Fatalf("result.json: %+v, %v", got, err)
	}
	en := got.Energy
	if en == nil || en.Window("run") == nil || en.Window("window") == nil {
		t.Fatalf("energy section %+v: want the run and the marked window", en)
	}
	for _, f := range en.Window("run").Components {
		if f.Name == "cpu" && f.CoveredS <= 0 { // a modelled CPU: at the run's utilisation
			t.Errorf("the CPU's energy covers none of the run: %+v", f)
		}
	}
	if want := "summary\n"; !strings.HasPrefix(stdout.String(), want) || !strings.Contains(stdout.String(), "Energy, run") || !strings.Contains(stdout.String(), "result: "+filepath.Join(out, "result.json")) {
		t.Errorf("stdout %q: want the summary, the energy (--base-watts was given) and the result line", stdout.String())
	}
	if b, _ := os.ReadFile(filepath.Join(out, "earlier", "1", "result.json")); string(b) != `{"earlier": true}` || !strings.Contains(stderr.String(), "note: the earlier run's result.json is in ") {
		t.Errorf("earlier result %q, stderr %q", b, stderr.String())
	}
	if want := []string{"start " + filepath.Base(out), "mark window start", "mark window end", "stop", "attach with storage"}; strings.Join(mon.calls, ",") != strings.Join(want, ",") {
		t.Errorf("monitor calls %q, want %q", mon.calls, want)
	}
	if _, err := os.Stat(filepath.Join(out, rundir.LockFile)); !os.IsNotExist(err) {
		t.Errorf("lock file after Finish: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tier, "db")); !os.IsNotExist(err) {
		t.Errorf("the database was not kept, yet %s/db is there (%v)", tier, err)
	}
}

// TestRunWithoutEngine: a workload without an engine gets the directory it is given
// (--dir: no storage section) and a failed phase leaves the earlier files where they
// were.
func TestRunWithoutEngine(t *testing.T) {
	out, dir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "result.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := settingsFor(t, Options{Sections: true}, "--out", out, "--dir", dir)
	r, err := startFor(t, s, workload.Request{Results: []string{"result.json"}}, IO{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Dir() != dir || r.Engine() != nil || r.IOSampler() != nil {
		t.Errorf("dir %s engine %v: want %s and no engine", r.Dir(), r.Engine(), dir)
	}
	boom := errors.New("boom")
	if err := r.Finish(nil, boom); !errors.Is(err, boom) {
		t.Errorf("Finish: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "result.json")); string(b) != "{}" {
		t.Errorf("the earlier result is not back: %q", b)
	}
	if _, err := os.Stat(filepath.Join(out, "earlier")); !os.IsNotExist(err) {
		t.Errorf("OUT/earlier after a run that wrote nothing: %v", err)
	}

	// A study's directory is the study's: a run there would set its report aside
	// and put a result.json beside its runs.
	if err := os.WriteFile(filepath.Join(out, rundir.StudyFile), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s = settingsFor(t, Options{Sections: true}, "--out", out, "--dir", dir)
	if _, err := startFor(t, s, workload.Request{Results: []string{"result.json"}}, IO{}); err == nil ||
		!strings.HasPrefix(err.Error(), "--out "+out+" holds a study (study.json): its report is `tierbench study report "+out+"`") {
		t.Errorf("a run into a study's directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "earlier")); !os.IsNotExist(err) {
		t.Errorf("the refused run set files aside: %v", err)
	}
}

// TestHostEmbodiedDefault: without --host-embodied-kg the SCI counts the published
// server figure and says it is a default; a given figure replaces it, and 0 leaves
// the host out and says so. By hand, the default over a 3,600 s window and 6 years:
// 1,314,100 g x 3600 / (6 x 31,557,600) = 24.98479 g.
func TestHostEmbodiedDefault(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		args        []string
		kg          float64
		dflt        bool
		notCounted  string
		sourceStart string
	}{
		{nil, 1314.1, true, "", "default: Dell's product carbon footprint of the PowerEdge R640"},
		{[]string{"--host-embodied-kg", "800"}, 800, false, "", "--host-embodied-kg 800 over --host-life-years 6"},
		{[]string{"--host-embodied-kg", "0"}, 0, false, "host: --host-embodied-kg 0 leaves it out", ""},
	} {
		cfg, err := settingsFor(t, engineOpts, append(tc.args, "--out", out)...).Config(workload.Request{})
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		en := &energy.Section{Windows: []energy.WindowResult{{Label: "run", Seconds: 3600, Total: energy.Figures{CO2g: 5}}}}
		if err := (&Run{cfg: cfg}).sci(nil, nil, en); err != nil {
			t.Fatal(err)
		}
		sci := en.SCI
		want := tc.kg * 1000 * 3600 / (6 * 31557600)
		if math.Abs(sci.EmbodiedG-want) > 1e-9 {
			t.Errorf("%v: embodied %v g, want %v", tc.args, sci.EmbodiedG, want)
		}
		if tc.kg == 0 {
			if len(sci.Embodied) != 0 || len(sci.NotCounted) != 1 || sci.NotCounted[0] != tc.notCounted {
				t.Errorf("%v: embodied %+v, not counted %q, want none and %q", tc.args, sci.Embodied, sci.NotCounted, tc.notCounted)
			}
			continue
		}
		if len(sci.Embodied) != 1 || sci.Embodied[0].Default != tc.dflt || !strings.HasPrefix(sci.Embodied[0].Source, tc.sourceStart) || len(sci.NotCounted) != 0 {
			t.Errorf("%v: embodied %+v (not counted %q), want default=%v from %q", tc.args, sci.Embodied, sci.NotCounted, tc.dflt, tc.sourceStart)
		}
	}
	if d := 1314100.0 * 3600 / (6 * 31557600); math.Abs(d-24.98479) > 1e-5 {
		t.Fatalf("hand figure %v", d) // the arithmetic the comment states
	}
}
