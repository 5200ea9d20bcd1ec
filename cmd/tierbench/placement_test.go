package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/emulator/emutest"
	"tierbench/internal/engine/enginetest"
	"tierbench/internal/engine/mysql"
	"tierbench/internal/engine/postgres"
	"tierbench/internal/workload/oltp"
	"tierbench/internal/workload/tpch"
)

// TestMain lets the test binary serve emulated devices: emulator.Start runs this
// executable as `device serve --config FILE`, as it runs tierbench. With
// asTierbenchEnv set it is tierbench itself, for tests that need a second process.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "device" && os.Args[2] == "serve" || os.Getenv(asTierbenchEnv) == "1" {
		os.Exit(run(os.Args[1:]))
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

// TestPlacementBadInput checks the placement mistakes of docs/placement.md, "Bad
// input": each is one line naming the flag, field or file, and nothing is left
// mounted.
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
		{"sqlite wal on a profile", []string{"--wal", "hdd-7200"}, []string{"--wal hdd-7200: SQLite keeps its WAL"}},
		{"sqlite direct", []string{"--flush-method", "direct"}, []string{"--flush-method direct: SQLite has no direct I/O"}},
		{"bad flush method", []string{"--flush-method", "sometimes"}, []string{`--flush-method "sometimes"`}},
		{"negative grid", []string{"--grid-intensity", "-1"}, []string{"--grid-intensity -1"}},
		{"external server", []string{"--engine", "postgres", "--dsn", "postgres://x@127.0.0.1:1/db", "--data", "hdd-7200"}, []string{"--dsn"}},
		{"bad emulator", []string{"--emulator", "mmap", "--data", "hdd-7200"}, []string{`--emulator "mmap"`, "give fuse"}},
		// a dram-ssd answering in nanoseconds: too fast for any host's FUSE round trip
		// (dram-ssd's own 16 us is not, on a host whose floor is under 8 us)
		{"too fast", []string{"--emulator", "fuse", "--tier", "x=dram-ssd(firmware=0us,read=0us,channel=1e7MB/s,interface=1e7MB/s)", "--data", "x"},
			[]string{"too fast for this host", "dram-ssd", "slower profile"}},
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

// slowSSD is a sata-ssd whose reads take 1 ms. tierbench refuses a device whose 8 KiB
// read is within twice the host's FUSE round trip, which a loaded 2-core host took to
// 56 us: sata-ssd's own 77 us was then "too fast". These tests are about what a run on
// a tier reports, not about the device, so they use one no host refuses.
const slowSSD = "sata-ssd(read=1ms)"

// TestTPCHRunOnTier runs `tpch run` with the database on an emulated device and checks
// result.json's storage section and that nothing is left mounted.
func TestTPCHRunOnTier(t *testing.T) {
	needFUSE(t)
	if testing.Short() {
		t.Skip("a TPC-H run of about 10 s")
	}
	out := t.TempDir()
	stdout, err := runCLI(t, "tpch", "run", "--sf", "0.01", "--out", out, "--tier", "ssd=pagecache("+slowSSD+",size=64MiB)",
		"--data", "ssd", "--temp", "ssd", "--grid-intensity", "56")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "Storage") || !strings.Contains(stdout, "pagecache("+slowSSD+",size=64MiB)") {
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

// TestServerTPCHOnPreloadTiers: `tpch run` on each managed server with its data on an
// emulated nvme and its WAL on an emulated dram-ssd takes the preload path by default
// (auto): both devices saw the server's writes, the engine's own counters were checked
// against theirs and nothing went around the shim, and the summary says so. Their
// reads take 1 ms here: the preload floor of a loaded 2-core host (38 us once) can pass
// the real profiles' 16-22 us, and this test is about the path, not the floor
// (scripts/preload-floor measures that).
func TestServerTPCHOnPreloadTiers(t *testing.T) {
	for _, tc := range []struct {
		engine    string
		installed func() error
	}{{"postgres", postgres.Installed}, {"mysql", mysql.Installed}} {
		t.Run(tc.engine, func(t *testing.T) {
			enginetest.RequireServer(t, tc.installed())
			out := enginetest.ServerDir(t)
			stdout, err := runCLI(t, "tpch", "run", "--engine", tc.engine, "--sf", "0.01", "--out", out, "--data", "nvme(read=1ms)", "--wal", "dram-ssd(read=1ms)", "--sample", "off")
			if err != nil {
				t.Fatalf("%v\n%s", err, stdout)
			}
			var res tpch.Result
			if err := json.Unmarshal(mustRead(t, filepath.Join(out, "result.json")), &res); err != nil {
				t.Fatal(err)
			}
			st := res.Storage
			if st == nil || st.Emulator == nil || st.Emulator.Requested != "auto" || st.Emulator.Path != "preload" {
				t.Fatalf("storage %+v: want the preload path, taken by auto", st)
			}
			for _, tr := range st.Tiers {
				if d := tr.Device; d == nil || d.Path != "preload" || d.Writes == 0 || d.Flushes == 0 || d.Ring == nil || d.Ring.Attached == 0 {
					t.Errorf("tier %s: device %+v: want the server's writes and flushes through the preload path", tr.Name, d)
				}
			}
			c := st.Emulator.EngineIO
			if c == nil || c.Bypassed || c.LogTier != "wal" || c.DeviceWritten <= 0 {
				t.Errorf("engine I/O check %+v: want one, with the WAL's tier apart, not bypassed", c)
			}
			if !strings.Contains(stdout, "emulated through the preload path") || !strings.Contains(stdout, "nothing went around the preload path") {
				t.Errorf("the storage summary does not say the path or the check:\n%s", stdout)
			}
		})
	}
}

// TestOLTPRunOnTierIORates: an oltp run on an emulated tier reports the device's MB/s
// in every interval line, in intervals.jsonl and over the window, and the window's
// bytes are part of what the device did over the whole command.
func TestOLTPRunOnTierIORates(t *testing.T) {
	needFUSE(t)
	out := t.TempDir()
	if _, err := runCLI(t, "oltp", "load", "--mix", "policy", "--scale", "0.01", "--data", slowSSD, "--out", out); err != nil {
		t.Fatal(err)
	}
	stdout, err := runCLI(t, "oltp", "run", "--mix", "policy", "--data", slowSSD, "--users", "2", "--ramp", "0s",
		"--duration", "2s", "--interval", "1s", "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stdout, "| data r/w MB/s: "); n != 2 {
		t.Errorf("%d interval lines with the device's rates, want 2:\n%s", n, stdout)
	}
	if !strings.Contains(stdout, "over the window: data r/w MB/s: ") {
		t.Errorf("the summary has no I/O line:\n%s", stdout)
	}
	var res oltp.Result
	if err := json.Unmarshal(mustRead(t, filepath.Join(out, "result.json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.IO == nil || len(res.IO.Devices) != 1 || res.Storage == nil || len(res.Storage.Tiers) != 1 || res.Storage.Tiers[0].Device == nil {
		t.Fatalf("io %+v, storage %+v", res.IO, res.Storage)
	}
	rate, dev := res.IO.Devices[0], res.Storage.Tiers[0].Device
	if rate.Name != "data" || rate.WriteMBs <= 0 || rate.Util <= 0 || rate.Util > 1 || res.IO.Engine != nil {
		t.Errorf("window rates %+v (engine %+v): want the data device writing, busy, and no engine counters on SQLite", rate, res.IO.Engine)
	}
	if window := rate.WriteMBs * 1e6 * res.Levels[0].Seconds; window > float64(dev.WriteBytes)*1.01 {
		t.Errorf("the window wrote %.0f bytes by its rate, more than the device's %d over the whole run", window, dev.WriteBytes)
	}
	// The monitor sampled the emulated device as a series: what it wrote over the window
	// is part of what it wrote over the whole command.
	w := res.Monitoring.Level(2)
	if w == nil {
		t.Fatalf("no monitoring window for 2 users: %+v", res.Monitoring)
	}
	if c := w.Counters["emu.data.write_bytes"]; c.Delta <= 0 || c.Delta > float64(dev.WriteBytes) {
		t.Errorf("the window's emu.data.write_bytes rose %v, want above 0 and at most the device's %d", c.Delta, dev.WriteBytes)
	}
	if u, ok := w.Series["emu.data.util_pct"]; !ok || u.Max <= 0 || u.Max > 100 {
		t.Errorf("emu.data.util_pct %+v", u)
	}
	lines := strings.Split(strings.TrimSpace(string(mustRead(t, filepath.Join(out, "intervals.jsonl")))), "\n")
	for _, l := range lines {
		if !strings.Contains(l, `"io":{"devices":[{"name":"data"`) {
			t.Errorf("interval record without the device's rates: %.300s", l)
		}
	}
	noMountsUnder(t, out)
}
