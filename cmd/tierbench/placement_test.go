package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/emulator/emutest"
	"tierbench/internal/tpch"
)

// TestMain lets the test binary serve emulated devices: emulator.Start runs this
// executable as `device serve --config FILE`, as it runs tierbench.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "device" && os.Args[2] == "serve" {
		root := newRootCommand()
		root.SetArgs(os.Args[1:])
		if err := root.Execute(); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func needFUSE(t *testing.T) { emutest.NeedFUSE(t) }

func noMountsUnder(t *testing.T, dir string) {
	t.Helper()
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mi), dir) {
		t.Errorf("a mount under %s is left:\n%s", dir, mi)
	}
}

// TestPlacementBadInput checks issue 3's bad input: each mistake is one line naming
// the flag, field or file, and nothing is left mounted.
func TestPlacementBadInput(t *testing.T) {
	dir := t.TempDir()
	profiles := filepath.Join(dir, "profiles.yaml")
	os.WriteFile(profiles, []byte("name: slowdisk\nclass: hdd\nsource: test\ncapacity_gb: 1\nrpm: -7200\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown profile", []string{"--tier", "x=hdd-9000", "--data", "x"}, []string{"--tier x=hdd-9000", `unknown device profile "hdd-9000"`}},
		{"bad profile file", []string{"--profiles", profiles, "--tier", "x=slowdisk", "--data", "x"}, []string{"--profiles", "profiles.yaml:5", "rpm"}},
		{"missing profile file", []string{"--profiles", filepath.Join(dir, "none.yaml"), "--tier", "x=hdd-7200", "--data", "x"}, []string{"none.yaml"}},
		{"missing directory", []string{"--tier", "x=" + filepath.Join(dir, "nope"), "--data", "x"}, []string{"--tier x=", "does not exist"}},
		{"unknown tier", []string{"--tier", "x=hdd-7200", "--data", "y"}, []string{"--data y", "tiers are x"}},
		{"db and data", []string{"--db", dir, "--data", "hdd-7200"}, []string{"--db", "--data hdd-7200", "give one"}},
		{"sqlite wal apart", []string{"--tier", "a=hdd-7200", "--tier", "b=sata-ssd", "--data", "a", "--wal", "b"}, []string{"--wal b", "SQLite keeps its WAL"}},
		{"sqlite direct", []string{"--flush-method", "direct"}, []string{"--flush-method direct: SQLite has no direct I/O"}},
		{"bad flush method", []string{"--flush-method", "sometimes"}, []string{`--flush-method "sometimes"`}},
		{"negative grid", []string{"--grid-intensity", "-1"}, []string{"--grid-intensity -1"}},
		{"external server", []string{"--engine", "postgres", "--dsn", "postgres://x@127.0.0.1:1/db", "--data", "hdd-7200"}, []string{"--dsn"}},
		{"too fast", []string{"--tier", "x=dram-ssd", "--data", "x"}, []string{"too fast for this host", "dram-ssd", "slower profile"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "too fast" {
				needFUSE(t)
			}
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"tpch", "run", "--sf", "0.01", "--out", out}, tc.args...)
			_, err := runCLI(t, args...)
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
			noMountsUnder(t, out)
			if _, err := os.Stat(filepath.Join(out, "tiers")); !os.IsNotExist(err) {
				t.Errorf("OUT/tiers is left (stat: %v)", err)
			}
		})
	}
}

// TestTPCHRunOnTier runs `tpch run` with the database on an emulated device and checks
// result.json's storage section and that nothing is left mounted.
func TestTPCHRunOnTier(t *testing.T) {
	needFUSE(t)
	if testing.Short() {
		t.Skip("a TPC-H run of about 10 s")
	}
	out := t.TempDir()
	stdout, err := runCLI(t, "tpch", "run", "--sf", "0.01", "--out", out, "--tier", "ssd=pagecache(sata-ssd,size=64MiB)",
		"--data", "ssd", "--temp", "ssd", "--grid-intensity", "56")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "Storage") || !strings.Contains(stdout, "pagecache(sata-ssd,size=64MiB)") {
		t.Errorf("the summary has no storage section:\n%s", stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res tpch.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	st := res.Storage
	if st == nil || len(st.Tiers) != 1 || st.Tiers[0].Device == nil {
		t.Fatalf("storage %+v", st)
	}
	d := st.Tiers[0].Device
	if d.Reads == 0 || d.Writes == 0 || d.Flushes == 0 || d.EnergyJ <= 0 || st.GridIntensity != 56 || st.CO2g <= 0 {
		t.Errorf("device %+v, storage %+v: want reads, writes, flushes, energy and CO2 at 56 g/kWh", d, st)
	}
	if st.Placement["data"] != "ssd" || st.Placement["temp"] != "ssd" || len(st.Settings) == 0 {
		t.Errorf("placement %v, settings %v", st.Placement, st.Settings)
	}
	noMountsUnder(t, out)
	if _, err := os.Stat(filepath.Join(out, "tiers")); !os.IsNotExist(err) {
		t.Errorf("OUT/tiers is left (stat: %v)", err)
	}
}
