//go:build linux

package placement

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/device"
	"tierbench/internal/engine"
	_ "tierbench/internal/engine/sqlite"
)

// TestSQLiteOnEmulatedTier mounts a sata-ssd tier through the FUSE emulator, runs
// SQLite on it with a cache far smaller than the table, and checks that the device
// saw the database's reads, writes and fsyncs, that the settings placement adds are
// in force, and that Finish leaves nothing mounted and nothing in OUT/tiers.
func TestSQLiteOnEmulatedTier(t *testing.T) {
	needFUSE(t)
	reg, err := device.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan([]string{"ssd=sata-ssd"}, Classes{Data: "ssd", Temp: "ssd"}, reg)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	ctx := context.Background()
	pl, err := plan.Start(ctx, Options{OutDir: out, Registry: reg, Emulator: emulatorOptions(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Stop()
	cfg := engine.Config{Name: "sqlite", Dir: filepath.Join(out, "db"), BufferBytes: 256 << 10}
	added, err := applyFiles(pl, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	mnt := filepath.Join(out, "tiers", "ssd", "mnt")
	if cfg.Dir != filepath.Join(mnt, "db") || cfg.TempDir != mnt {
		t.Fatalf("EngineFiles placed data in %s and temp in %s, want %s/db and %s", cfg.Dir, cfg.TempDir, mnt, mnt)
	}
	if len(added) != 2 || cfg.Settings["mmap_size"] != "0" || cfg.Settings["temp_store"] != "FILE" {
		t.Fatalf("EngineFiles added %v, settings %v: want mmap_size=0 and temp_store=FILE", added, cfg.Settings)
	}
	eng, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := eng.DB()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			eng.Close()
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
	pad := strings.Repeat("x", 200)
	for batch := 0; batch < 10; batch++ {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 1000; i++ {
			if _, err := tx.Exec("INSERT INTO t VALUES (?, ?)", batch*1000+i, fmt.Sprintf("%d%s", i, pad)); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	exec("PRAGMA wal_checkpoint(TRUNCATE)")
	var n int64
	// A sort of 10,000 rows of 200 bytes by a non-indexed expression spills past the cache.
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM (SELECT v FROM t ORDER BY substr(v, 2) DESC)").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 10000 {
		t.Fatalf("count %d, want 10000", n)
	}
	info, err := eng.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Settings["mmap_size"] != "0" || info.Settings["temp_store"] != "1" {
		t.Errorf("SQLite reports mmap_size=%s temp_store=%s, want 0 and 1 (FILE)", info.Settings["mmap_size"], info.Settings["temp_store"])
	}
	live, err := pl.Stats()
	if err != nil || len(live) != 1 || live[0].Writes == 0 {
		t.Errorf("live stats %+v, %v: want one device with writes", live, err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := pl.Finish(DefaultGridIntensity)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Tiers) != 1 || st.Tiers[0].Device == nil {
		t.Fatalf("storage %+v: want one tier with device counters", st)
	}
	d := st.Tiers[0].Device
	t.Logf("device: %d reads, %d writes, %d flushes, %d/%d bytes, busy %.3f s of %.3f s, %.3f J",
		d.Reads, d.Writes, d.Flushes, d.ReadBytes, d.WriteBytes, d.BusyS, d.ElapsedS, d.EnergyJ)
	if d.Reads == 0 || d.Writes == 0 || d.Flushes == 0 || d.BusyS <= 0 {
		t.Errorf("device saw %d reads, %d writes, %d flushes, busy %v s: want all non-zero", d.Reads, d.Writes, d.Flushes, d.BusyS)
	}
	if st.Tiers[0].Profile == nil || st.Tiers[0].Profile.Power.IdleW == 0 {
		t.Errorf("profile %+v: want sata-ssd's watts", st.Tiers[0].Profile)
	}
	// E = P_idle*T + (P_active-P_idle)*T_busy with sata-ssd's own watts.
	p := st.Tiers[0].Profile.Power
	want := p.IdleW*d.ElapsedS + (p.ActiveW-p.IdleW)*d.BusyS
	if diff := d.EnergyJ - want; diff > 1e-6*want+1e-9 || diff < -1e-6*want-1e-9 {
		t.Errorf("energy %.9f J, want %.9f J from the profile's watts", d.EnergyJ, want)
	}
	if mi, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(mi), mnt) {
		t.Errorf("%s is still mounted after Finish", mnt)
	}
	if _, err := os.Stat(filepath.Join(out, "tiers")); !os.IsNotExist(err) {
		t.Errorf("OUT/tiers is left after Finish (stat: %v)", err)
	}
}
