package servertest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
)

// TestUnreachableDSNHidesPassword: a server that cannot be reached, in each way a DSN
// can name it, is one line that names the host or socket and never the password.
func TestUnreachableDSNHidesPassword(t *testing.T) {
	for _, tc := range []struct {
		server string
		dsns   []string
		// names are what the error may name the server by (one is enough).
		names []string
	}{
		{"postgres", []string{
			"postgres://bob:Sup3rSecret@127.0.0.1:1/tpch?connect_timeout=2",
			"host=127.0.0.1 port=1 user=bob password=Sup3rSecret dbname=tpch connect_timeout=2",
			"host=/nonexistent/socketdir user=bob password=Sup3rSecret",
			"postgres://bob:Sup3rSecret@[bad",
		}, []string{"bad", "127.0.0.1", "/nonexistent/socketdir"}},
		{"mysql", []string{
			"bob:Sup3rSecret@tcp(127.0.0.1:1)/tpch",
			"bob:Sup3rSecret@unix(/nonexistent/mysqld.sock)/tpch",
			"mysql://bob:Sup3rSecret@127.0.0.1:1/tpch",
			"bob:Sup3rSecret@tcp(127.0.0.1:1/tpch",
		}, []string{"127.0.0.1", "/nonexistent/mysqld.sock"}},
	} {
		t.Run(tc.server, func(t *testing.T) {
			for _, dsn := range tc.dsns {
				_, err := engine.Open(context.Background(), engine.Config{Name: tc.server, DSN: dsn})
				if err == nil {
					t.Fatalf("%s: no error", dsn)
				}
				msg := err.Error()
				t.Log(msg)
				if strings.Contains(msg, "Sup3rSecret") || strings.Contains(msg, "\n") {
					t.Errorf("error leaks the password or spans lines: %q", msg)
				}
				if !containsAny(msg, tc.names) {
					t.Errorf("error does not name the host or socket: %q", msg)
				}
			}
		})
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestStartFailureCleansUp: a managed server given an option it does not know does
// not start, and leaves no instance directory behind.
func TestStartFailureCleansUp(t *testing.T) {
	for _, tc := range []struct {
		server string
		bad    map[string]string
	}{
		{"postgres", map[string]string{"no_such_setting": "1"}},
		{"mysql", map[string]string{"no-such-option": "1"}},
	} {
		s := ByName(t, tc.server)
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			enginetest.RequireServer(t, s.Installed())
			dir := enginetest.ServerDir(t)
			_, err := engine.Open(context.Background(), engine.Config{Name: s.Name, Dir: dir, Settings: tc.bad})
			if err == nil {
				t.Fatal("a bad setting started")
			}
			t.Log(err)
			// The instance lives in a directory named for the engine inside Dir.
			if _, statErr := os.Stat(filepath.Join(dir, s.Name)); !os.IsNotExist(statErr) {
				t.Errorf("instance dir left after a failed start: %v", statErr)
			}
		})
	}
}

// TestInstallFailureCleansUp: when creating the instance fails (initdb,
// mariadb-install-db), the error carries the tool's output and nothing the attempt
// made is left, in Dir or on the other tiers. Fake binaries stand in for the server's
// on PATH, so no server needs to be installed.
func TestInstallFailureCleansUp(t *testing.T) {
	for _, tc := range []struct {
		server string
		fakes  map[string]string // binary name -> shell script
		// config opens the server in dir, with another tier of its own there.
		config func(dir string) engine.Config
		// left are what must not be left in dir.
		left []string
	}{
		{"postgres", map[string]string{
			"initdb":   "#!/bin/sh\necho 'initdb: error: simulated failure' >&2\nexit 1\n",
			"postgres": "#!/bin/sh\nexit 1\n",
		}, func(dir string) engine.Config {
			return engine.Config{Name: "postgres", Dir: dir, WALDir: filepath.Join(dir, "wal")}
		}, []string{"postgres", "wal/postgres-wal"}},
		{"mysql", map[string]string{
			"mariadbd":           "#!/bin/sh\necho 'mariadbd  Ver 10.11.0-MariaDB (fake)'\n",
			"mariadb-install-db": "#!/bin/sh\necho 'simulated failure' >&2\nexit 1\n",
		}, func(dir string) engine.Config {
			return engine.Config{Name: "mysql", Dir: dir, TempDir: filepath.Join(dir, "tmp")}
		}, []string{"mysql", "tmp/mysql-temp"}},
	} {
		t.Run(tc.server, func(t *testing.T) {
			bin := enginetest.ServerDir(t)
			for name, script := range tc.fakes {
				if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("PATH", bin)
			dir := enginetest.ServerDir(t)
			_, err := engine.Open(context.Background(), tc.config(dir))
			if err == nil || !strings.Contains(err.Error(), "simulated failure") {
				t.Fatalf("got %v, want the install output", err)
			}
			for _, sub := range tc.left {
				if _, statErr := os.Stat(filepath.Join(dir, sub)); !os.IsNotExist(statErr) {
					t.Errorf("%s left after a failed install: %v", sub, statErr)
				}
			}
		})
	}
}
