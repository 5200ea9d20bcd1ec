// Package servertest starts managed PostgreSQL and MariaDB/MySQL instances for the
// tests of the packages above the engine layer (TPC-H, the mixes, TPC-C), so that each
// does not repeat which servers exist, how to tell that one is installed, and the
// settings that make a test instance cheap. (enginetest cannot do it: the engines'
// own tests import it, and it would import them.) Its own tests hold what every
// server engine must do alike, run on each: a life outside a clean run (killed,
// failed starts and installs) and a DSN that fails without showing its password.
package servertest

import (
	"context"
	"maps"
	"testing"

	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
	"tierbench/internal/engine/mysql"
	"tierbench/internal/engine/postgres"
)

// Server is one server engine tests run against.
type Server struct {
	Name string
	// Installed is nil when the server's binaries are there.
	Installed func() error
	// NoSync are settings that spare a test instance the flushes at each commit:
	// tests need no durability across a crash of the machine.
	NoSync map[string]string
	// FailsAtStart is a setting the server parses (so the check before the start
	// passes it) but fails to start with.
	FailsAtStart map[string]string
}

// Servers are PostgreSQL and MariaDB/MySQL.
var Servers = []Server{
	{"postgres", postgres.Installed, map[string]string{"fsync": "off", "synchronous_commit": "off"},
		map[string]string{"shared_preload_libraries": "tierbench_no_such_library"}},
	{"mysql", mysql.Installed, map[string]string{"innodb_flush_log_at_trx_commit": "0"},
		map[string]string{"default_storage_engine": "tierbench_no_such_engine"}},
}

// Open starts a managed instance for t in a directory the server's user can reach and
// stops it when t ends. A server that is not installed skips t, or fails it under
// CI=true (enginetest.RequireServer). cfg's Name and Dir are set here; with noSync the
// NoSync settings come under cfg.Settings.
func (s Server) Open(t *testing.T, cfg engine.Config, noSync bool) engine.Engine {
	t.Helper()
	enginetest.RequireServer(t, s.Installed())
	cfg.Name, cfg.Dir = s.Name, enginetest.ServerDir(t)
	if noSync {
		set := maps.Clone(s.NoSync)
		maps.Copy(set, cfg.Settings)
		cfg.Settings = set
	}
	e, err := engine.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// ByName is the server called name; it fails t for a name that is not one.
func ByName(t *testing.T, name string) Server {
	t.Helper()
	for _, s := range Servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("servertest: no server %q", name)
	return Server{}
}
