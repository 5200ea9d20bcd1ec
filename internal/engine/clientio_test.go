package engine

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestParseClientIO(t *testing.T) {
	for in, want := range map[string]ClientIO{"": ClientIOAuto, "auto": ClientIOAuto, " Thread ": ClientIOThread, "poller": ClientIOPoller} {
		got, err := ParseClientIO(in)
		if err != nil || got != want {
			t.Errorf("ParseClientIO(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseClientIO("blocking"); err == nil || err.Error() != `"blocking": give auto, thread or poller` {
		t.Errorf("ParseClientIO(blocking): %v", err)
	}
}

func TestThreadSessions(t *testing.T) {
	limit := ThreadSessionsPerCPU * runtime.NumCPU()
	for _, c := range []struct {
		io       ClientIO
		sessions int
		want     bool
	}{
		{ClientIOAuto, 0, false}, // unknown: the poller
		{ClientIOAuto, 1, true},
		{ClientIOAuto, limit, true},
		{ClientIOAuto, limit + 1, false},
		{"", 4, true},
		{ClientIOThread, 0, true},
		{ClientIOThread, 10 * limit, true},
		{ClientIOPoller, 1, false},
	} {
		if got := (Config{ClientIO: c.io, Sessions: c.sessions}).ThreadSessions(); got != c.want {
			t.Errorf("ClientIO %q, %d sessions: threads %v, want %v", c.io, c.sessions, got, c.want)
		}
	}
}

func TestInfoDescribe(t *testing.T) {
	if got := (Info{Mode: Managed, Settings: map[string]string{"client_io": "thread"}}).Describe(); got != "managed, client io thread" {
		t.Errorf("Describe = %q", got)
	}
	if got := (Info{Mode: Embedded}).Describe(); got != "embedded" {
		t.Errorf("Describe = %q", got)
	}
}

// TestOpenMakesPathsAbsolute: engines get absolute directories, since a managed server
// runs elsewhere (and as another user when tierbench runs as root).
func TestOpenMakesPathsAbsolute(t *testing.T) {
	var got Config
	stop := errors.New("stop")
	Register(testDriver{name: "test-paths", d: &Dialect{Name: "test-paths"}, open: func(cfg Config) (Engine, error) { got = cfg; return nil, stop }})
	wd, _ := os.Getwd()
	_, err := Open(context.Background(), Config{Name: "test-paths", Dir: "runs/x/db", WALDir: "/abs/wal"})
	if err != stop {
		t.Fatal(err)
	}
	if got.Dir != filepath.Join(wd, "runs/x/db") || got.WALDir != "/abs/wal" || got.TempDir != "" {
		t.Errorf("engine got Dir %q WALDir %q TempDir %q", got.Dir, got.WALDir, got.TempDir)
	}
}

// nopConnector opens no connection; a sql.DB on it can still be closed.
type nopConnector struct{}

func (nopConnector) Connect(context.Context) (driver.Conn, error) {
	return nil, errors.New("no server")
}
func (nopConnector) Driver() driver.Driver { return nil }

func TestPools(t *testing.T) {
	db, own := sql.OpenDB(nopConnector{}), sql.OpenDB(nopConnector{})
	if got := ClientIOOf(db, db); got != ClientIOPoller {
		t.Errorf("ClientIOOf(db, db) = %q", got)
	}
	if got := ClientIOOf(db, own); got != ClientIOThread {
		t.Errorf("ClientIOOf(db, own pool) = %q", got)
	}
	if got := ClientIOOf(nil, nil); got != ClientIOPoller {
		t.Errorf("ClientIOOf(nil, nil) = %q", got)
	}
	if err := ClosePools(db, own); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*sql.DB{"db": db, "sessions": own} {
		if err := p.Ping(); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("%s after ClosePools: Ping = %v, want closed", name, err)
		}
	}
	shared := sql.OpenDB(nopConnector{})
	if err := ClosePools(shared, shared); err != nil {
		t.Fatal(err)
	}
	if err := ClosePools(nil, nil); err != nil {
		t.Fatal(err)
	}
}

// TestCloseServer: the pools close before the managed instance stops, a stop error is
// returned naming the engine, and an external server (no stop) closes cleanly.
func TestCloseServer(t *testing.T) {
	db := sql.OpenDB(nopConnector{})
	poolsClosed := false
	err := CloseServer("postgres", db, db, func() error {
		poolsClosed = db.Ping() != nil && strings.Contains(db.Ping().Error(), "closed")
		return errors.New("server did not stop")
	})
	if !poolsClosed {
		t.Error("stop ran before the pools were closed")
	}
	if err == nil || err.Error() != "postgres: close: server did not stop" {
		t.Errorf("error %v, want it to name the engine and the cause", err)
	}
	if err := CloseServer("mysql", sql.OpenDB(nopConnector{}), nil, nil); err != nil {
		t.Errorf("external server: %v", err)
	}
}
