package enginetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"tierbench/internal/engine"
)

// RunManaged runs the suite on a managed instance of the server engine cfg.Name, its
// data, WAL and temporary files each in a directory of its own inside a ServerDir,
// and its sessions (cancel included) waiting on threads: RunExternal runs the suite
// on the poller. applied says whether the instance's settings (engine.Info) show
// cfg's; left are the directories, relative to the ServerDir, that the instance makes
// beside its data and must remove when it closes. The caller has called
// RequireServer.
func (h Harness) RunManaged(t *testing.T, cfg engine.Config, applied func(settings map[string]string) bool, left ...string) {
	t.Helper()
	dir := ServerDir(t)
	cfg.Dir, cfg.WALDir, cfg.TempDir = filepath.Join(dir, "data"), filepath.Join(dir, "wal"), filepath.Join(dir, "tmp")
	cfg.ClientIO = engine.ClientIOThread
	h.Open = func(t *testing.T) engine.Engine {
		e, err := engine.Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		info, err := e.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !applied(info.Settings) || info.Settings["client_io"] != "thread" {
			t.Errorf("settings not applied: %v", info.Settings)
		}
		return e
	}
	Run(t, h)
	for _, sub := range left {
		if _, err := os.Stat(filepath.Join(dir, sub)); err == nil {
			t.Errorf("%s left after Close", sub)
		}
	}
}

// RunExternal runs the suite in external mode on the server engine name: against the
// DSN in the environment variable env, or when that is not set against a managed
// instance (installed says whether the server is there) reached as an external server
// is, through socketDSN. An external engine with automatic client I/O and no session
// count keeps the poller.
func (h Harness) RunExternal(t *testing.T, name, env string, installed func() error, socketDSN func(engine.Engine) string) {
	t.Helper()
	dsn := os.Getenv(env)
	if dsn == "" {
		RequireServer(t, installed())
		m, err := engine.Open(context.Background(), engine.Config{Name: name, Dir: ServerDir(t)})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		dsn = socketDSN(m)
	}
	h.Open = func(t *testing.T) engine.Engine {
		e, err := engine.Open(context.Background(), engine.Config{Name: name, DSN: dsn})
		if err != nil {
			t.Fatal(err)
		}
		if info, err := e.Info(context.Background()); err != nil || info.Settings["client_io"] != "poller" {
			t.Errorf("client_io %q (%v): auto with no session count should keep the poller", info.Settings["client_io"], err)
		}
		return e
	}
	Run(t, h)
}
