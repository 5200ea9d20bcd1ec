package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

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

func TestMatchLoaded(t *testing.T) {
	loaded := &engine.Info{Name: "postgres", Mode: engine.Managed}
	for _, tc := range []struct {
		name     string
		args     []string
		wantName string
		wantNote bool
		wantErr  string
	}{
		{"no --engine: the load's", nil, "postgres", true, ""},
		{"the same --engine", []string{"--engine", "postgres"}, "postgres", false, ""},
		{"another --engine", []string{"--engine", "mysql"}, "mysql", false, "--engine mysql: OUT holds data loaded into postgres"},
		{"--dsn names the server", []string{"--engine", "mysql", "--dsn", "u@unix(/s)/d"}, "mysql", false, ""},
		{"--db names the database", []string{"--db", "/elsewhere"}, "sqlite", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ef engineFlags
			cmd := &cobra.Command{}
			ef.register(cmd)
			if err := cmd.ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.SetErr(&stderr)
			err := ef.matchLoaded(cmd, "OUT", "load.json", loaded)
			if (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
			if ef.name != tc.wantName {
				t.Errorf("engine %s, want %s", ef.name, tc.wantName)
			}
			if got := strings.Contains(stderr.String(), "note: using --engine postgres, which OUT was loaded into"); got != tc.wantNote {
				t.Errorf("note %q, want one: %v", stderr.String(), tc.wantNote)
			}
		})
	}
	var ef engineFlags
	cmd := &cobra.Command{}
	ef.register(cmd)
	if err := ef.matchLoaded(cmd, "OUT", "load.json", nil); err != nil || ef.name != "sqlite" {
		t.Errorf("no load: %v, engine %s", err, ef.name)
	}
}
