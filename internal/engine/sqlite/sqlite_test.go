package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
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
