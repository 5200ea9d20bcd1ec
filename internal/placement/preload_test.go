//go:build linux && cgo

package placement

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
	"tierbench/internal/engine/mysql"
	"tierbench/internal/engine/postgres"
)

func preloadOptions(t *testing.T) emulator.Options {
	opts := emulatorOptions(t)
	opts.Path = emulator.PathPreload
	return opts
}

// TestServersOnPreloadTiers runs each managed server with its data on an emulated
// nvme and its WAL on an emulated dram-ssd, both on the preload path (the two
// profiles a FUSE mount refuses here), and checks what TestServersOnEmulatedTiers
// checks for FUSE: both devices saw the server's writes and flushes, a flush per
// commit on the log. And one check of its own: the server's own I/O counters are
// not above what the devices saw, so no I/O went around the shim.
func TestServersOnPreloadTiers(t *testing.T) {
	for _, tc := range []struct {
		engine    string
		installed func() error
	}{
		{"postgres", postgres.Installed},
		{"mysql", mysql.Installed},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			enginetest.RequireServer(t, tc.installed())
			ctx := context.Background()
			pl, cfg, _ := placeServer(t, tc.engine, []string{"data=nvme", "log=dram-ssd"}, Classes{Data: "data", WAL: "log", Temp: "data"},
				Options{Emulator: preloadOptions(t)})
			if !strings.Contains(strings.Join(cfg.Env, " "), "LD_PRELOAD=") || !strings.HasSuffix(cfg.Dir, filepath.Join("tiers", "data", "backing", "db")) {
				t.Fatalf("EngineFiles gave env %v and dir %s: want the shim and the tier's own directory", cfg.Env, cfg.Dir)
			}
			eng, err := engine.Open(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			closed := false
			defer func() {
				if !closed {
					eng.Close()
				}
			}()
			if err := pl.WatchEngineIO(ctx, eng); err != nil {
				t.Fatal(err)
			}
			db := eng.DB()
			if _, err := db.ExecContext(ctx, "CREATE TABLE t (k INTEGER PRIMARY KEY, v VARCHAR(300))"); err != nil {
				t.Fatal(err)
			}
			const commits = 100
			for i := 0; i < commits; i++ {
				if _, err := db.ExecContext(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d, '%s')", i, strings.Repeat("y", 250))); err != nil {
					t.Fatal(err)
				}
			}
			io, err := eng.(engine.IOCounter).IOBytes(ctx)
			if err != nil {
				t.Fatal(err)
			}
			live, err := pl.Stats()
			if err != nil {
				t.Fatal(err)
			}
			var devRead, devWritten int64
			for _, d := range live {
				devRead += d.ReadBytes
				devWritten += d.WriteBytes
			}
			t.Logf("engine counted %d bytes read, %d written (%s); devices %d and %d", io.Read, io.Written, io.Source, devRead, devWritten)
			if io.Written > devWritten || io.Read > devRead {
				t.Errorf("the engine counted more I/O than the devices saw: some of it went around the shim")
			}
			if err := pl.CheckEngineIO(ctx); err != nil {
				t.Errorf("the run's own check: %v", err)
			}
			if err := eng.Close(); err != nil {
				t.Fatal(err)
			}
			closed = true
			st, err := pl.Finish(DefaultGridIntensity)
			if err != nil {
				t.Fatal(err)
			}
			if st.Emulator == nil || st.Emulator.Path != emulator.PathPreload {
				t.Fatalf("storage says the emulator was %+v, want preload", st.Emulator)
			}
			if c := st.Emulator.EngineIO; c == nil || c.Bypassed || c.LogTier != "log" {
				t.Errorf("engine I/O check %+v: want one recorded, not bypassed, with the WAL's tier log apart", c)
			}
			for _, tr := range st.Tiers {
				d := tr.Device
				// too_fast is logged, not asserted: a loaded host's floor can pass
				// dram-ssd's 16 us read (AllowTooFast serves it all the same)
				t.Logf("tier %s (%s): %d reads, %d writes, %d flushes; late p50 %.1f us p99 %.1f us; %d processes attached; floor %.1f us, too fast %v",
					tr.Name, tr.Spec, d.Reads, d.Writes, d.Flushes, d.TimingError.P50, d.TimingError.P99, d.Ring.Attached, d.FloorUs, d.TooFast)
				if d.Writes == 0 || d.Flushes == 0 || d.Path != emulator.PathPreload {
					t.Errorf("tier %s: %d writes, %d flushes, path %q: the server's I/O did not reach the device through the preload path",
						tr.Name, d.Writes, d.Flushes, d.Path)
				}
			}
			if log := st.Tiers[1].Device; log.Flushes < commits {
				t.Errorf("the log tier saw %d flushes for %d commits", log.Flushes, commits)
			}
		})
	}
}

// TestSQLiteOnPreloadTier is TestSQLiteOnEmulatedTier on the preload path, on the
// fastest built-in profile: SQLite's reads, writes and syncs reach the device through
// the VFS, and Finish leaves nothing behind.
func TestSQLiteOnPreloadTier(t *testing.T) {
	reg, err := device.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan([]string{"fast=dram-ssd"}, Classes{Data: "fast", Temp: "fast"}, reg)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	ctx := context.Background()
	opts := emulatorOptions(t)
	opts.Path = emulator.PathAuto
	pl, err := plan.Start(ctx, Options{OutDir: out, Registry: reg, Emulator: opts, Engine: "sqlite"})
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Stop()
	cfg := engine.Config{Name: "sqlite", BufferBytes: 256 << 10}
	if _, err := applyFiles(pl, &cfg); err != nil {
		t.Fatal(err)
	}
	eng, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := eng.DB()
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)"); err != nil {
		t.Fatal(err)
	}
	for b := range 5 { // five commits: five syncs of the WAL at least
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 1000 {
			if _, err := tx.Exec("INSERT INTO t VALUES (?, ?)", b*1000+i, fmt.Sprintf("%0200d", i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM (SELECT v FROM t ORDER BY substr(v, 2) DESC)").Scan(&n); err != nil || n != 5000 {
		t.Fatalf("count %d, %v", n, err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := pl.Finish(DefaultGridIntensity)
	if err != nil {
		t.Fatal(err)
	}
	d := st.Tiers[0].Device
	t.Logf("device: %d reads, %d writes, %d flushes; late p50 %.1f us p99 %.1f us", d.Reads, d.Writes, d.Flushes, d.TimingError.P50, d.TimingError.P99)
	if st.Emulator == nil || st.Emulator.Path != emulator.PathPreload || st.Emulator.Requested != emulator.PathAuto {
		t.Errorf("emulator %+v: want auto giving preload for SQLite", st.Emulator)
	}
	if d.Reads == 0 || d.Writes == 0 || d.Flushes == 0 || d.BusyS <= 0 || d.Path != emulator.PathPreload {
		t.Errorf("device saw %d reads, %d writes, %d flushes, busy %v s, path %q", d.Reads, d.Writes, d.Flushes, d.BusyS, d.Path)
	}
	if _, err := os.Stat(filepath.Join(out, "tiers")); !os.IsNotExist(err) {
		t.Errorf("OUT/tiers is left after Finish (stat: %v)", err)
	}
}

// TestChoosePath: auto takes the preload path where the shim can enter the engine and
// falls back to FUSE, saying why, where it cannot (a setuid server binary); preload
// asked for explicitly fails with the same reason.
func TestChoosePath(t *testing.T) {
	static := staticEngine(t)
	for _, tc := range []struct {
		requested, engine, path, why string
	}{
		{"", "postgres", emulator.PathFUSE, ""},
		{emulator.PathFUSE, "sqlite", emulator.PathFUSE, ""},
		{emulator.PathAuto, "sqlite", emulator.PathPreload, ""},
		{emulator.PathPreload, "sqlite", emulator.PathPreload, ""},
		{emulator.PathAuto, "static-engine", emulator.PathFUSE, "setuidd is setuid or setgid"},
		{emulator.PathPreload, "static-engine", "", "--emulator preload: " + static + " is setuid or setgid"},
		{emulator.PathAuto, "", emulator.PathFUSE, "the workload's I/O is tierbench's own"},
		{emulator.PathPreload, "", "", "--emulator preload: the workload's I/O is tierbench's own"},
		{"mmap", "sqlite", "", "give fuse, preload or auto"},
	} {
		path, fallback, err := choosePath(tc.requested, tc.engine)
		got := fallback
		if err != nil {
			got = err.Error()
		}
		if path != tc.path || (tc.why == "") != (got == "") || !strings.Contains(got, tc.why) {
			t.Errorf("%s for %q: path %q, %q; want %q and a reason containing %q", tc.requested, tc.engine, path, got, tc.path, tc.why)
		}
	}
}

// setuidEngine is an engine whose server is a setuid program the shim cannot enter
// (the loader ignores LD_PRELOAD there): registered once as "static-engine", its
// program is the one staticEngine made last.
type setuidEngine struct{}

var (
	setuidOnce    sync.Once
	setuidProgram string
)

func (setuidEngine) Name() string             { return "static-engine" }
func (setuidEngine) Dialect() *engine.Dialect { return &engine.Dialect{Name: "static-engine"} }
func (setuidEngine) Open(context.Context, engine.Config) (engine.Engine, error) {
	return nil, errors.New("static-engine: never opened")
}
func (setuidEngine) IOSettings() *engine.IOSettings {
	return &engine.IOSettings{Preload: &engine.Preload{Programs: func() ([]string, error) { return []string{setuidProgram}, nil }}}
}

// staticEngine makes a setuid copy of /bin/true the server of the engine
// "static-engine", for the test's duration.
func staticEngine(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	setuid := filepath.Join(t.TempDir(), "setuidd")
	if err := os.WriteFile(setuid, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(setuid, 0o755|os.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	setuidOnce.Do(func() { engine.Register(setuidEngine{}) })
	setuidProgram = setuid
	t.Cleanup(func() { setuidProgram = "" })
	return setuid
}

// TestAutoFallsBackToFUSE: with auto, an engine the shim cannot enter gets its tiers
// on FUSE, and the storage section and its summary say so and why.
func TestAutoFallsBackToFUSE(t *testing.T) {
	needFUSE(t)
	staticEngine(t)
	reg, err := device.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan([]string{"d=sata-ssd"}, Classes{Data: "d"}, reg)
	if err != nil {
		t.Fatal(err)
	}
	opts := emulatorOptions(t)
	opts.Path = emulator.PathAuto
	pl, err := plan.Start(context.Background(), Options{OutDir: t.TempDir(), Registry: reg, Emulator: opts, Engine: "static-engine"})
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Stop()
	st, err := pl.Finish(DefaultGridIntensity)
	if err != nil {
		t.Fatal(err)
	}
	e := st.Emulator
	if e == nil || e.Requested != emulator.PathAuto || e.Path != emulator.PathFUSE || !strings.Contains(e.Fallback, "setuid") {
		t.Fatalf("emulator %+v: want auto falling back to fuse because the server is setuid", e)
	}
	if d := st.Tiers[0].Device; d == nil || d.Path != emulator.PathFUSE {
		t.Fatalf("tier served on %+v, want fuse", d)
	}
	var out strings.Builder
	st.WriteSummary(&out)
	if !strings.Contains(out.String(), "emulated through FUSE, not the preload path: ") {
		t.Errorf("summary does not say why:\n%s", out.String())
	}
}

// TestLongTierPathFallsBack: a tier whose directory is longer than the preload ring
// holds (1024 bytes) cannot be matched by the shim's clients. Asked for preload, the
// run is refused with that cause; with auto the tier goes on a FUSE mount instead, and
// the storage section says why.
func TestLongTierPathFallsBack(t *testing.T) {
	needFUSE(t)
	reg, err := device.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(nil, Classes{Data: "sata-ssd"}, reg)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	for range 5 {
		out = filepath.Join(out, strings.Repeat("d", 220))
	}
	ctx := context.Background()
	opts := emulatorOptions(t)
	opts.Path = emulator.PathPreload
	_, err = plan.Start(ctx, Options{OutDir: out, Registry: reg, Emulator: opts, Engine: "sqlite"})
	if !errors.Is(err, emulator.ErrNoPreload) || !strings.HasPrefix(err.Error(), "--emulator preload: ") || !strings.Contains(err.Error(), "shorter than 1024 bytes") {
		t.Fatalf("--emulator preload on a %d-byte path: %v, want the ring's refusal", len(out), err)
	}
	opts.Path = emulator.PathAuto
	pl, err := plan.Start(ctx, Options{OutDir: out, Registry: reg, Emulator: opts, Engine: "sqlite"})
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Stop()
	if d := pl.Dir(Data); !strings.HasSuffix(d, filepath.Join("tiers", "data", "mnt", "db")) {
		t.Errorf("data directory %s: want the FUSE mount's", d)
	}
	st, err := pl.Finish(DefaultGridIntensity)
	if err != nil {
		t.Fatal(err)
	}
	if e := st.Emulator; e == nil || e.Requested != emulator.PathAuto || e.Path != emulator.PathFUSE || !strings.Contains(e.Fallback, "shorter than 1024 bytes") {
		t.Errorf("emulator %+v: want auto on fuse, saying the path was too long for the ring", e)
	}
}
