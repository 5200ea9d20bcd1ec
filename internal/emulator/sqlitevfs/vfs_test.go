//go:build linux && cgo

package sqlitevfs

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/emulator"
	"tierbench/internal/emulator/emutest"
)

func TestMain(m *testing.M) { emutest.Main(m) }

// TestSQLiteThroughTheRing opens a database in a preload device's directory and one
// elsewhere: the device counts the first one's reads, writes and syncs, and the temp
// files of a sort that spills (SQLITE_TMPDIR on the device), and none of the other's.
func TestSQLiteThroughTheRing(t *testing.T) {
	dir := t.TempDir()
	dev := emulator.Device{Name: "d", Spec: "sata-ssd", BackingDir: filepath.Join(dir, "dev")}
	opts := emutest.Options(t)
	opts.Path = emulator.PathPreload
	opts.AllowTooFast = true
	e, err := emulator.Start(context.Background(), []emulator.Device{dev}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	detach, err := Attach(e.RingPath())
	if err != nil {
		t.Fatal(err)
	}
	defer detach()
	t.Setenv("SQLITE_TMPDIR", dev.BackingDir)

	run := func(path string) {
		t.Helper()
		db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_synchronous=FULL")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		for _, q := range []string{
			"PRAGMA cache_size=-64", "PRAGMA mmap_size=0", "PRAGMA temp_store=FILE",
			"CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)",
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		for b := range 5 {
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			for i := range 1000 {
				if _, err := tx.Exec("INSERT INTO t VALUES (?, ?)", b*1000+i, fmt.Sprintf("%d%s", i, strings.Repeat("x", 200))); err != nil {
					t.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM (SELECT v FROM t ORDER BY substr(v, 2) DESC)").Scan(&n); err != nil || n != 5000 {
			t.Fatalf("count %d, %v", n, err)
		}
	}
	run(filepath.Join(dev.BackingDir, "on.db"))
	before, err := e.Stats()
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(dir, "off")
	os.Setenv("SQLITE_TMPDIR", elsewhere)
	if err := os.Mkdir(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	run(filepath.Join(elsewhere, "off.db"))
	after, err := e.Stats()
	if err != nil {
		t.Fatal(err)
	}
	d := before[0]
	t.Logf("device: %d reads, %d writes, %d flushes, %d/%d bytes; late p50 %v p99 %v", d.Reads, d.Writes, d.Flushes,
		d.ReadBytes, d.WriteBytes, d.TimingError.Quantile(0.5), d.TimingError.Quantile(0.99))
	if d.Reads == 0 || d.Writes == 0 || d.Flushes < 5 || d.Ring.Attached != 1 {
		t.Errorf("device saw %d reads, %d writes, %d flushes, %d processes attached: want reads, writes, a sync per commit, one process",
			d.Reads, d.Writes, d.Flushes, d.Ring.Attached)
	}
	if a := after[0]; a.Reads != d.Reads || a.Writes != d.Writes || a.Flushes != d.Flushes {
		t.Errorf("a database elsewhere reached the device: %d/%d/%d requests before, %d/%d/%d after",
			d.Reads, d.Writes, d.Flushes, a.Reads, a.Writes, a.Flushes)
	}
}
