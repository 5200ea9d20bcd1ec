//go:build linux && cgo

package placement

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tierbench/internal/emulator"
	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
	"tierbench/internal/engine/postgres"
)

// TestMissed: the rule that fails a run as bypassed, by hand. With a 32 MiB slack and
// a quarter's share: 200 MiB written by the engine's count and 140 seen by the devices
// misses 60 MiB, more than 32 and more than 50: bypassed. 200 and 160 misses 40 MiB,
// under 50: not. 80 and 40 misses 40 MiB, over 32 and over 20: bypassed. 40 and 0
// misses 40 MiB, over 10 and over 32: bypassed; 30 and 0 is within the slack. Devices
// that saw more than the engine counted (a page written twice, a relation's new pages)
// are never bypassed.
func TestMissed(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		eng, dev int64
		want     bool
	}{
		{200 * mib, 140 * mib, true},
		{200 * mib, 160 * mib, false},
		{80 * mib, 40 * mib, true},
		{40 * mib, 0, true},
		{30 * mib, 0, false},
		{0, 500 * mib, false},
		{100 * mib, 300 * mib, false},
	} {
		if got := missed(tc.eng, tc.dev); got != tc.want {
			t.Errorf("engine %d MiB, devices %d MiB: bypassed %v, want %v", tc.eng/mib, tc.dev/mib, got, tc.want)
		}
	}
}

// TestBypassFailsLoudly: PostgreSQL with its data and WAL placed on preload tiers but
// its WAL, in truth, in a directory outside every tier (as a server's I/O would be
// that the shim does not see): the server counts some 85 MB of WAL that the WAL's
// device never saw, and the check fails with both counts; the storage section records
// them. The same server
// with nothing going around the shim passes (TestServersOnPreloadTiers).
func TestBypassFailsLoudly(t *testing.T) {
	enginetest.RequireServer(t, postgres.Installed())
	ctx := context.Background()
	pl, cfg, _ := placeServer(t, "postgres", nil, Classes{Data: "nvme", WAL: "sata-ssd"}, Options{Emulator: preloadOptions(t)})
	cfg.WALDir = filepath.Join(enginetest.ServerDir(t), "wal-outside-the-tiers")
	eng, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if err := pl.WatchEngineIO(ctx, eng); err != nil {
		t.Fatal(err)
	}
	start, err := eng.(engine.IOCounter).IOBytes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := eng.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// 80000 rows of 1000 bytes (stored inline, uncompressed): about 85 MB of WAL. The
	// backend publishes its WAL counter when it goes idle after the forced flush.
	for _, q := range []string{
		"CREATE TABLE b AS SELECT g, repeat('x', 1000) AS v FROM generate_series(1, 80000) g",
		"SELECT pg_stat_force_next_flush()",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()
	// the backend publishes its counts once idle: wait for them, boundedly
	counter := eng.(engine.IOCounter)
	for i := 0; ; i++ {
		b, err := counter.IOBytes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b.Written-start.Written >= 80<<20 {
			break
		}
		if i == 60 {
			t.Fatalf("the server counted %d bytes written after 15 s, want the WAL's 85 MB", b.Written-start.Written)
		}
		time.Sleep(250 * time.Millisecond)
	}
	checkErr := pl.CheckEngineIO(ctx)
	var bypass *BypassError
	if !errors.As(checkErr, &bypass) {
		t.Fatalf("CheckEngineIO: %v, want a *BypassError", checkErr)
	}
	c := bypass.Check
	t.Logf("%v", checkErr)
	if !c.Bypassed || c.LogTier != "wal" || c.EngineLog < 64<<20 || c.LogTierWrites > 8<<20 {
		t.Errorf("check %+v: want the WAL's 85 MB counted by the engine and missed by the WAL's device", c)
	}
	msg := checkErr.Error()
	for _, w := range []string{"went around the preload path", "MiB of it WAL", "on the WAL's tier wal", "use --emulator fuse"} {
		if !strings.Contains(msg, w) || strings.Contains(msg, "\n") {
			t.Errorf("error %q: want one line that says %q", msg, w)
		}
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := pl.Finish(DefaultGridIntensity)
	if err != nil {
		t.Fatal(err)
	}
	if e := st.Emulator; e == nil || e.Path != emulator.PathPreload || e.EngineIO == nil || !e.EngineIO.Bypassed {
		t.Errorf("storage section's emulator %+v: want the check recorded as bypassed", e)
	}
}
