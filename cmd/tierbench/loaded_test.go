package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/engine"
)

// writeLoad puts a load file in a new directory, as a load into engine name in mode
// leaves it.
func writeLoad(t *testing.T, file, name string, mode engine.Mode) string {
	t.Helper()
	dir := t.TempDir()
	body := `{"seed": 1, "mix": "point-select", "engine": {"name": "` + name + `", "version": "x", "mode": "` + string(mode) + `"}}`
	if err := os.WriteFile(filepath.Join(dir, file), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRunAndCheckFollowTheLoad: tpcc run and check and oltp run open the engine the
// data in --out was loaded into, refuse another --engine rather than start an empty
// database beside it, and ask for --dsn again after a load on an external server.
func TestRunAndCheckFollowTheLoad(t *testing.T) {
	pg := writeLoad(t, "load.json", "postgres", engine.Managed)
	_, err := runCLI(t, "tpcc", "check", "--engine", "sqlite", "--out", pg)
	if err == nil || !strings.Contains(err.Error(), "--engine sqlite: "+pg+" holds data loaded into postgres ("+filepath.Join(pg, "load.json")+"): give --engine postgres") {
		t.Errorf("tpcc check --engine sqlite on a postgres load: %v", err)
	}
	if _, err := os.Stat(filepath.Join(pg, "db")); !os.IsNotExist(err) {
		t.Errorf("the refused check left %s/db behind (%v)", pg, err)
	}
	ext := writeLoad(t, "load.json", "mysql", engine.External)
	_, err = runCLI(t, "tpcc", "run", "--duration", "1s", "--out", ext)
	if err == nil || !strings.Contains(err.Error(), "the data was loaded into an external mysql server: give --engine mysql --dsn DSN") {
		t.Errorf("tpcc run after an external load, without --dsn: %v", err)
	}
	my := writeLoad(t, "oltp-load.json", "mysql", engine.Managed)
	_, err = runCLI(t, "oltp", "run", "--mix", "point-select", "--engine", "postgres", "--duration", "1s", "--out", my)
	if err == nil || !strings.Contains(err.Error(), "--engine postgres: "+my+" holds data loaded into mysql") {
		t.Errorf("oltp run --engine postgres on a mysql load: %v", err)
	}
}
