package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/engine"
	_ "tierbench/internal/engine/mysql"
	_ "tierbench/internal/engine/postgres"
	_ "tierbench/internal/engine/sqlite"
)

func names(ss []engine.Setting) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name+"="+s.Value)
	}
	return strings.Join(out, " ")
}

// TestIOSettings: what each engine gets on an emulated tier and per flush method, by
// server version, and the methods it cannot have.
func TestIOSettings(t *testing.T) {
	for _, tc := range []struct {
		engine   string
		emulated bool
		method   engine.FlushMethod
		major    int
		want     string
		err      string
	}{
		{"postgres", true, "", 15, "backend_flush_after=0 bgwriter_flush_after=0 checkpoint_flush_after=0 wal_writer_flush_after=0", ""},
		{"postgres", true, "", 18, "backend_flush_after=0 bgwriter_flush_after=0 checkpoint_flush_after=0 wal_writer_flush_after=0 io_method=sync", ""},
		// An unknown version never gets a setting it may not know.
		{"postgres", true, "", 0, "backend_flush_after=0 bgwriter_flush_after=0 checkpoint_flush_after=0 wal_writer_flush_after=0", ""},
		{"postgres", false, engine.Direct, 16, "debug_io_direct=data,wal", ""},
		{"postgres", false, engine.Direct, 15, "", "--flush-method direct: postgres 15 has no direct I/O (debug_io_direct came in 16)"},
		{"postgres", false, engine.Buffered, 15, "", ""},
		{"postgres", false, "", 15, "", ""},
		{"mysql", true, "", 10, "innodb_use_native_aio=0 innodb_flush_method=fsync", ""},
		{"mysql", true, engine.Direct, 10, "innodb_use_native_aio=0 innodb_flush_method=O_DIRECT", ""},
		{"mysql", false, engine.Buffered, 10, "innodb_flush_method=fsync", ""},
		{"mysql", false, "", 10, "", ""},
		{"sqlite", true, "", 0, "mmap_size=0 temp_store=FILE", ""},
		{"sqlite", true, engine.Direct, 0, "", "--flush-method direct: SQLite has no direct I/O"},
		{"oracle", true, "", 0, "", `unknown engine "oracle"`},
	} {
		t.Run(tc.engine+"/"+string(tc.method), func(t *testing.T) {
			io, err := engine.IOSettingsOf(tc.engine)
			var got []engine.Setting
			if err == nil {
				got, err = io.For(tc.engine, tc.emulated, tc.method, tc.major)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if names(got) != tc.want {
				t.Errorf("got %q, want %q", names(got), tc.want)
			}
			for _, s := range got {
				if s.Reason == "" {
					t.Errorf("%s has no reason", s.Name)
				}
			}
		})
	}
}

// TestServerMajor: only PostgreSQL's settings depend on the server's version.
func TestServerMajor(t *testing.T) {
	for name, want := range map[string]bool{"postgres": true, "mysql": false, "sqlite": false} {
		io, err := engine.IOSettingsOf(name)
		if err != nil || (io.ServerMajor != nil) != want {
			t.Errorf("%s: version-bound %v (%v), want %v", name, io.ServerMajor != nil, err, want)
		}
	}
}

// TestPreloadFacts: how the emulator's preload path enters each engine. SQLite runs in
// tierbench (the VFS); PostgreSQL and MariaDB name the programs that start with the
// shim in their environment, which, where the server is installed, are executables
// (initdb and postgres; mariadbd and its install program).
func TestPreloadFacts(t *testing.T) {
	for _, tc := range []struct {
		engine    string
		inProcess bool
		programs  []string
	}{
		{"sqlite", true, nil},
		{"postgres", false, []string{"initdb", "postgres"}},
		{"mysql", false, []string{"mariadbd|mysqld"}},
	} {
		io, err := engine.IOSettingsOf(tc.engine)
		if err != nil {
			t.Fatal(err)
		}
		p := io.Preload
		if p == nil || p.InProcess != tc.inProcess || (p.Programs == nil) != tc.inProcess {
			t.Errorf("%s: preload %+v, want in process %v with programs only for a server", tc.engine, p, tc.inProcess)
			continue
		}
		if p.Programs == nil {
			continue
		}
		progs, err := p.Programs()
		if err != nil {
			t.Logf("%s: %v (not installed: the programs cannot be checked)", tc.engine, err)
			continue
		}
		for _, want := range tc.programs {
			found := false
			for _, prog := range progs {
				for _, name := range strings.Split(want, "|") {
					if filepath.Base(prog) == name {
						found = true
						if fi, err := os.Stat(prog); err != nil || fi.Mode()&0o111 == 0 {
							t.Errorf("%s: program %s is not an executable (%v)", tc.engine, prog, err)
						}
					}
				}
			}
			if !found {
				t.Errorf("%s: programs %v, want %s among them", tc.engine, progs, want)
			}
		}
	}
}
