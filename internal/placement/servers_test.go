//go:build linux

package placement

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/device"
	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
	"tierbench/internal/engine/mysql"
	"tierbench/internal/engine/postgres"
)

// TestServersOnEmulatedTiers runs each managed server with its data on one emulated
// device and its WAL (redo log) on another, and checks what placement promises: the
// settings it adds are in force on the server, and both devices saw the server's
// reads, writes and flushes.
func TestServersOnEmulatedTiers(t *testing.T) {
	needFUSE(t)
	for _, tc := range []struct {
		engine    string
		flush     engine.FlushMethod
		installed func() error
		// show returns a setting's value as the server reports it.
		show func(name string) string
	}{
		{"postgres", "", postgres.Installed, func(name string) string { return "SHOW " + name }},
		{"mysql", "", mysql.Installed, func(name string) string { return "SELECT @@" + name }},
		{"mysql", engine.Direct, mysql.Installed, func(name string) string { return "SELECT @@" + name }},
	} {
		t.Run(tc.engine+"/"+string(tc.flush), func(t *testing.T) {
			enginetest.RequireServer(t, tc.installed())
			ctx := context.Background()
			pl, cfg, added := placeServer(t, tc.engine, []string{"data=sata-ssd", "log=sata-ssd"}, Classes{Data: "data", WAL: "log", Temp: "data"},
				Options{Emulator: emulatorOptions(t), FlushMethod: tc.flush})
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
			wantFlush := map[engine.FlushMethod]string{"": "fsync", engine.Direct: "O_DIRECT"}[tc.flush]
			if tc.engine == "mysql" && cfg.Settings["innodb_flush_method"] != wantFlush {
				t.Errorf("innodb_flush_method=%q, want %q for --flush-method %q", cfg.Settings["innodb_flush_method"], wantFlush, tc.flush)
			}
			for _, s := range added {
				var got string
				if err := eng.DB().QueryRowContext(ctx, tc.show(s.Name)).Scan(&got); err != nil {
					t.Fatalf("%s: %v", tc.show(s.Name), err)
				}
				if !strings.EqualFold(got, s.Value) && !(s.Value == "0" && strings.EqualFold(got, "OFF")) {
					t.Errorf("%s is %q on the server, placement set %q", s.Name, got, s.Value)
				}
			}
			db := eng.DB()
			for _, q := range []string{
				"CREATE TABLE t (k INTEGER PRIMARY KEY, v VARCHAR(300))",
			} {
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			for i := 0; i < 200; i++ { // 200 commits: 200 WAL flushes
				if _, err := db.ExecContext(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d, '%s')", i, strings.Repeat("y", 250))); err != nil {
					t.Fatal(err)
				}
			}
			if err := eng.Close(); err != nil {
				t.Fatal(err)
			}
			closed = true
			st, err := pl.Finish(DefaultGridIntensity)
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range st.Tiers {
				d := tr.Device
				t.Logf("tier %s (%v): %d reads, %d writes, %d flushes, busy %.3f s of %.3f s", tr.Name, tr.Classes, d.Reads, d.Writes, d.Flushes, d.BusyS, d.ElapsedS)
				if d.Writes == 0 || d.Flushes == 0 {
					t.Errorf("tier %s saw %d writes and %d flushes: the server's I/O did not reach the device", tr.Name, d.Writes, d.Flushes)
				}
			}
			if log := st.Tiers[1].Device; log.Flushes < 200 {
				t.Errorf("the log tier saw %d flushes for 200 commits", log.Flushes)
			}
		})
	}
}

// placeServer starts the tiers of a managed server's files (stopped when the test
// ends, after its own deferred calls close the server) in a directory the server's
// user can reach, and applies them to its configuration: the placed tiers, the
// configuration and the settings placement added.
func placeServer(t *testing.T, name string, tiers []string, classes Classes, opts Options) (*Placed, engine.Config, []engine.Setting) {
	t.Helper()
	reg, err := device.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(tiers, classes, reg)
	if err != nil {
		t.Fatal(err)
	}
	out := enginetest.ServerDir(t)
	opts.OutDir, opts.Registry, opts.Engine = out, reg, name
	pl, err := plan.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pl.Stop() })
	cfg := engine.Config{Name: name, Dir: filepath.Join(out, "db")}
	added, err := applyFiles(pl, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	return pl, cfg, added
}
