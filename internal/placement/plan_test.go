package placement

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
	"tierbench/internal/engine"
)

func builtin(t *testing.T) *device.Registry {
	t.Helper()
	reg, err := device.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestNewPlan(t *testing.T) {
	reg := builtin(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		tiers   []string
		classes Classes
		want    []Tier
		placed  Classes
	}{
		{"profile and directory", []string{"fast=sata-ssd", "slow=" + dir}, Classes{Data: "slow", WAL: "fast"},
			[]Tier{{Name: "fast", Spec: "sata-ssd"}, {Name: "slow", Dir: dir}}, Classes{Data: "slow", WAL: "fast"}},
		{"composite spec", []string{"d=pagecache(hdd-7200,size=64MiB)"}, Classes{Data: "d", Temp: "d"},
			[]Tier{{Name: "d", Spec: "pagecache(hdd-7200,size=64MiB)"}}, Classes{Data: "d", Temp: "d"}},
		{"class names a profile", nil, Classes{Data: "hdd-7200", WAL: "sata-ssd"},
			[]Tier{{Name: "data", Spec: "hdd-7200"}, {Name: "wal", Spec: "sata-ssd"}}, Classes{Data: "data", WAL: "wal"}},
		{"class names a directory", nil, Classes{Temp: dir},
			[]Tier{{Name: "temp", Dir: dir}}, Classes{Temp: "temp"}},
		{"null device", []string{"n=null"}, Classes{Data: "n"}, []Tier{{Name: "n", Spec: "null"}}, Classes{Data: "n"}},
		{"nothing", nil, Classes{}, nil, Classes{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewPlan(tc.tiers, tc.classes, reg)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Tiers) != len(tc.want) {
				t.Fatalf("tiers %+v, want %+v", p.Tiers, tc.want)
			}
			for i := range tc.want {
				if p.Tiers[i] != tc.want[i] {
					t.Errorf("tier %d: %+v, want %+v", i, p.Tiers[i], tc.want[i])
				}
			}
			if p.Classes != tc.placed {
				t.Errorf("classes %+v, want %+v", p.Classes, tc.placed)
			}
		})
	}
}

// TestNewPlanErrors checks that every mistake is one line naming the flag and the value.
func TestNewPlanErrors(t *testing.T) {
	reg := builtin(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	readOnly := filepath.Join(dir, "ro")
	os.Mkdir(readOnly, 0o555)
	for _, tc := range []struct {
		name    string
		tiers   []string
		classes Classes
		want    []string
	}{
		{"no equals", []string{"fast"}, Classes{Data: "fast"}, []string{`--tier "fast"`, "NAME=PROFILE"}},
		{"bad name", []string{"a b=sata-ssd"}, Classes{}, []string{`"a b"`, "letters, digits"}},
		{"unknown profile", []string{"x=hdd-9000"}, Classes{Data: "x"}, []string{"--tier x=hdd-9000", `unknown device profile "hdd-9000"`, "known profiles are"}},
		{"bad spec field", []string{"x=hdd-7200(rpm=-5)"}, Classes{Data: "x"}, []string{"--tier x=hdd-7200(rpm=-5)", "rpm"}},
		{"unknown device in a composite", []string{"x=pagecache(hdd-9000,size=64MiB)"}, Classes{Data: "x"}, []string{"--tier x=pagecache(hdd-9000,size=64MiB)", `unknown device profile "hdd-9000"`}},
		{"unknown device in a class's composite", nil, Classes{Data: "raid10(hdd-9000,devices=4)"}, []string{"--data raid10(hdd-9000,devices=4)", `unknown device profile "hdd-9000"`}},
		{"missing directory", []string{"x=" + filepath.Join(dir, "nope")}, Classes{Data: "x"}, []string{"nope does not exist", "create it"}},
		{"a file", []string{"x=" + file}, Classes{Data: "x"}, []string{"is a file"}},
		{"twice", []string{"x=sata-ssd", "x=nvme"}, Classes{Data: "x"}, []string{"given twice"}},
		{"unused tier", []string{"x=sata-ssd", "y=nvme"}, Classes{Data: "x"}, []string{"--tier y=nvme holds nothing", "--data y"}},
		{"unknown class tier", []string{"x=sata-ssd"}, Classes{Data: "x", WAL: "fats"}, []string{"--wal fats", "tiers are x"}},
		{"class name taken", []string{"wal=sata-ssd"}, Classes{Data: "wal", WAL: "hdd-7200"}, []string{"--wal hdd-7200", `a tier named "wal" exists`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewPlan(tc.tiers, tc.classes, reg)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error spans lines: %q", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
		})
	}
	if os.Geteuid() != 0 { // root writes anywhere; checkWritable proves it by writing
		t.Run("read-only directory", func(t *testing.T) {
			_, err := NewPlan([]string{"x=" + readOnly}, Classes{Data: "x"}, reg)
			if err == nil || !strings.Contains(err.Error(), "not writable") {
				t.Errorf("error %v, want not writable", err)
			}
		})
	}
}

func TestCheckEngine(t *testing.T) {
	reg := builtin(t)
	p, err := NewPlan([]string{"a=sata-ssd", "b=hdd-7200"}, Classes{Data: "a", WAL: "b"}, reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckEngine(&engine.Config{Name: "sqlite"}, ""); err == nil || !strings.Contains(err.Error(), "--wal b") {
		t.Errorf("sqlite with the WAL apart: %v, want an error naming --wal", err)
	}
	if err := p.CheckEngine(&engine.Config{Name: "postgres"}, ""); err != nil {
		t.Errorf("postgres: %v", err)
	}
	same, _ := NewPlan([]string{"a=sata-ssd"}, Classes{Data: "a", WAL: "a"}, reg)
	if err := same.CheckEngine(&engine.Config{Name: "sqlite"}, ""); err != nil {
		t.Errorf("sqlite with the WAL beside the data: %v", err)
	}
}

// applyFiles puts what pl gives the engine into cfg, as the run lifecycle does, and
// returns the settings it added.
func applyFiles(pl *Placed, cfg *engine.Config) ([]engine.Setting, error) {
	f, err := pl.EngineFiles(*cfg)
	if err != nil {
		return nil, err
	}
	for d, v := range map[*string]string{&cfg.Dir: f.Dir, &cfg.WALDir: f.WALDir, &cfg.TempDir: f.TempDir} {
		if v != "" {
			*d = v
		}
	}
	cfg.Env = append(cfg.Env, f.Env...)
	for _, st := range f.Settings {
		if cfg.Settings == nil {
			cfg.Settings = map[string]string{}
		}
		cfg.Settings[st.Name] = st.Value
	}
	return f.Settings, nil
}

// TestEngineFiles places directory tiers (no mount needed) and checks where each class goes
// and which settings are added, a user's setting winning.
func TestEngineFiles(t *testing.T) {
	reg := builtin(t)
	dataDir, walDir, tempDir := t.TempDir(), t.TempDir(), t.TempDir()
	p, err := NewPlan([]string{"d=" + dataDir, "w=" + walDir, "t=" + tempDir}, Classes{Data: "d", WAL: "w", Temp: "t"}, reg)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := p.Start(t.Context(), Options{Registry: reg, FlushMethod: engine.Direct, ServerMajor: 10})
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{Name: "mysql", Dir: "/elsewhere", Settings: map[string]string{"innodb_use_native_aio": "1"}}
	added, err := applyFiles(pl, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Dir != filepath.Join(dataDir, "db") || cfg.WALDir != walDir || cfg.TempDir != tempDir {
		t.Errorf("dirs %s, %s, %s: want %s/db, %s, %s", cfg.Dir, cfg.WALDir, cfg.TempDir, dataDir, walDir, tempDir)
	}
	// Directory tiers need no emulation settings; direct I/O is asked for.
	if len(added) != 1 || added[0].Name != "innodb_flush_method" || cfg.Settings["innodb_flush_method"] != "O_DIRECT" {
		t.Errorf("added %+v, settings %v: want innodb_flush_method=O_DIRECT only", added, cfg.Settings)
	}
	if cfg.Settings["innodb_use_native_aio"] != "1" {
		t.Errorf("the user's innodb_use_native_aio=1 was changed to %s", cfg.Settings["innodb_use_native_aio"])
	}
	os.Mkdir(cfg.Dir, 0o755) // as the engine would
	st, err := pl.Finish(DefaultGridIntensity)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg.Dir); !os.IsNotExist(err) {
		t.Errorf("the empty data directory %s made in the user's tier is left (%v)", cfg.Dir, err)
	}
	if st.Placement["data"] != "d" || st.Placement["wal"] != "w" || st.Placement["temp"] != "t" || len(st.Tiers) != 3 || st.Tiers[0].Kind != "directory" {
		t.Errorf("storage %+v", st)
	}
	if st.EnergyJ != 0 || st.Tiers[0].Device != nil {
		t.Errorf("directory tiers have no device counters or energy: %+v", st)
	}

	// SQLite cannot take direct I/O, nor an external server placement.
	p2, err := NewPlan([]string{"d=" + dataDir}, Classes{Data: "d"}, reg)
	if err != nil {
		t.Fatal(err)
	}
	pl2, _ := p2.Start(t.Context(), Options{Registry: reg, FlushMethod: engine.Direct})
	if _, err := pl2.EngineFiles(engine.Config{Name: "sqlite"}); err == nil || !strings.Contains(err.Error(), "--flush-method direct: SQLite has no direct I/O") {
		t.Errorf("sqlite direct: %v", err)
	}
	if _, err := pl2.EngineFiles(engine.Config{Name: "postgres", DSN: "host=x"}); err == nil || !strings.Contains(err.Error(), "--dsn") {
		t.Errorf("external server: %v", err)
	}
}

// TestTooFastNamesTheFlag: the emulator's refusal names the flag that made the tier,
// keeps the emulator's figures for errors.As and still matches ErrTooFast.
func TestTooFastNamesTheFlag(t *testing.T) {
	tf := &emulator.TooFastError{Device: "f", Spec: "nvme", Read8K: 22245 * time.Nanosecond, Floor: 18 * time.Microsecond}
	var err error = &TooFastError{Flag: "--tier f=nvme", TooFastError: tf}
	want := "--tier f=nvme: device too fast for this host: use trace replay: nvme answers a random 8 KiB read in 22.245µs, but this host's FUSE round trip alone is 18µs: record a trace on a slower device and replay it through nvme (tierbench device replay); or give the tier a slower profile"
	if err.Error() != want {
		t.Errorf("text\n%s\nwant\n%s", err, want)
	}
	var back *emulator.TooFastError
	if !errors.Is(err, emulator.ErrTooFast) || !errors.As(err, &back) || back != tf {
		t.Errorf("errors.Is %v, errors.As %v", errors.Is(err, emulator.ErrTooFast), back)
	}
}
