package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
)

func TestConformance(t *testing.T) {
	dir := t.TempDir()
	enginetest.Run(t, enginetest.Harness{
		Open: func(t *testing.T) engine.Engine {
			e, err := engine.Open(context.Background(), engine.Config{
				Name: "sqlite", Dir: dir, TempDir: filepath.Join(dir, "tmp"), BufferBytes: 64 << 20,
			})
			if err != nil {
				t.Fatal(err)
			}
			return e
		},
		LongSQL: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c",
	})
	if _, err := os.Stat(filepath.Join(dir, "tierbench.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("database file left after Close: %v", err)
	}
}

func TestKeep(t *testing.T) {
	dir := t.TempDir()
	cfg := engine.Config{Name: "sqlite", Dir: dir, Database: "tpch", Keep: true}
	e, err := engine.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB().Exec("CREATE TABLE k (a INTEGER)"); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tpch.db")); err != nil {
		t.Fatalf("Keep: %v", err)
	}
	cfg.Keep = false // an existing file is never removed: this engine did not create it
	e, err = engine.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tpch.db")); err != nil {
		t.Fatalf("reopened file removed: %v", err)
	}
}

func TestTempDirIsProcessWide(t *testing.T) {
	a, err := Open(context.Background(), engine.Config{Name: "sqlite", Dir: t.TempDir(), TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := Open(context.Background(), engine.Config{Name: "sqlite", Dir: t.TempDir(), TempDir: t.TempDir()}); err == nil {
		t.Error("a second, different TempDir was accepted")
	}
}

func TestDefaultTempDirIsTheDatabaseDir(t *testing.T) {
	ctx := context.Background()
	dirA, dirB := t.TempDir(), t.TempDir()
	a, err := Open(ctx, engine.Config{Name: "sqlite", Dir: dirA})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, engine.Config{Name: "sqlite", Dir: dirB}) // gives way to dirA
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, e := range []engine.Engine{a, b} {
		info, err := e.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.Settings["temp_dir"] != dirA {
			t.Errorf("temp_dir = %q, want %q", info.Settings["temp_dir"], dirA)
		}
	}
	if got := os.Getenv("SQLITE_TMPDIR"); got != dirA {
		t.Errorf("SQLITE_TMPDIR = %q", got)
	}
}

// TestSettings: SQLite ignores an unknown PRAGMA and reads a value it cannot parse as
// 0, so a setting is checked before the database opens and read back on every
// connection: an unknown name, a malformed value or one SQLite does not keep is an
// error; those it keeps are recorded verified in their reported form, one it cannot
// report unverified (docs/engines.md, "Settings: --set").
func TestSettings(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		settings map[string]string
		want     string // in the error; "" opens
	}{
		{"unknown PRAGMA", map[string]string{"nosuch_pragma": "1"}, "nosuch_pragma=1: no such setting"},
		{"PostgreSQL's setting", map[string]string{"work_mem": "64MB"}, "work_mem=64MB: no such setting"},
		{"not an integer", map[string]string{"cache_size": "abc"}, "cache_size=abc: give an integer"},
		{"not a boolean", map[string]string{"foreign_keys": "maybe"}, "foreign_keys=maybe: give on or off"},
		{"not a level", map[string]string{"synchronous": "always"}, "synchronous=always: give one of EXTRA, FULL, NORMAL, OFF"},
		{"a page size SQLite has not", map[string]string{"page_size": "1000"}, "page_size=1000: give a power of two"},
		// The build caps worker threads (SQLITE_MAX_WORKER_THREADS, 8): PRAGMA threads
		// reads 8 after 100 was set.
		{"more threads than the build allows", map[string]string{"threads": "100"}, "threads=100: SQLite did not take it: PRAGMA threads reads 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := registered{}.CheckSettings(tc.settings)
			_, openErr := Open(ctx, engine.Config{Name: "sqlite", Dir: t.TempDir(), Settings: tc.settings})
			var se *engine.SettingError
			if openErr == nil || !errors.As(openErr, &se) || !strings.Contains(openErr.Error(), tc.want) {
				t.Errorf("open: %v, want a setting error with %q", openErr, tc.want)
			}
			if tc.name != "more threads than the build allows" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("check: %v, want %q", err, tc.want)
			}
		})
	}

	settings := map[string]string{"synchronous": "NORMAL", "page_size": "8192", "Cache_Size": "-4000", "case_sensitive_like": "on", "foreign_keys": "yes"}
	var e engine.Engine
	enginetest.Settings(t, "sqlite", nil, settings, []engine.AppliedSetting{
		{Name: "Cache_Size", Requested: "-4000", Value: "-4000", Verified: true},
		{Name: "case_sensitive_like", Requested: "on", Why: "SQLite does not report this PRAGMA's value"},
		{Name: "foreign_keys", Requested: "yes", Value: "1", Verified: true},
		// applied before journal_mode=WAL fixes the file's page size
		{Name: "page_size", Requested: "8192", Value: "8192", Verified: true},
		{Name: "synchronous", Requested: "NORMAL", Value: "1", Verified: true},
	}, func(t *testing.T, settings map[string]string) engine.Engine {
		var err error
		if e, err = Open(ctx, engine.Config{Name: "sqlite", Dir: t.TempDir(), Settings: settings}); err != nil {
			t.Fatal(err)
		}
		return nopClose{e}
	})
	defer e.Close()
	info, err := e.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Settings["synchronous"] != "1" || info.Settings["page_size"] != "8192" {
		t.Errorf("settings %v", info.Settings)
	}
	// Every connection is checked, not the first only.
	conns := make([]*sql.Conn, 3)
	for i := range conns {
		if conns[i], err = e.DB().Conn(ctx); err != nil {
			t.Fatal(err)
		}
		var sync string
		if err := conns[i].QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil || sync != "1" {
			t.Errorf("connection %d: synchronous %q (%v)", i, sync, err)
		}
	}
	for _, c := range conns {
		c.Close()
	}
}

// nopClose keeps an engine open past the helper that would close it.
type nopClose struct{ engine.Engine }

func (nopClose) Close() error { return nil }
