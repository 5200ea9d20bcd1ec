package postgres

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
)

var harness = enginetest.Harness{
	LongSQL:    "SELECT pg_sleep(30)",
	RunningSQL: "SELECT COUNT(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)' AND state = 'active'",
}

func TestManaged(t *testing.T) {
	t.Parallel()
	enginetest.RequireServer(t, Installed())
	dir := enginetest.ServerDir(t)
	h := harness
	h.Open = func(t *testing.T) engine.Engine {
		e, err := engine.Open(context.Background(), engine.Config{
			Name: "postgres", Dir: filepath.Join(dir, "data"), WALDir: filepath.Join(dir, "wal"),
			TempDir: filepath.Join(dir, "tmp"), BufferBytes: 32 << 20,
			Settings: map[string]string{"fsync": "off", "max_connections": "20"},
			// The suite's sessions (cancel included) wait on threads here; TestExternal
			// runs it on the poller.
			ClientIO: engine.ClientIOThread,
		})
		if err != nil {
			t.Fatal(err)
		}
		info, err := e.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if info.Settings["shared_buffers"] != "32MB" || info.Settings["fsync"] != "off" || info.Settings["temp_tablespaces"] != tempTablespace ||
			info.Settings["client_io"] != "thread" {
			t.Errorf("settings not applied: %v", info.Settings)
		}
		return e
	}
	enginetest.Run(t, h)
	for _, sub := range []string{"wal/postgres-wal", "tmp/postgres-temp"} {
		if _, err := os.Stat(filepath.Join(dir, sub)); err == nil {
			t.Errorf("%s left after Close", sub)
		}
	}
}

// TestExternal runs the suite in external mode against TIERBENCH_POSTGRES_DSN, or
// when that is not set against a managed cluster reached through its socket.
func TestExternal(t *testing.T) {
	t.Parallel()
	dsn := os.Getenv("TIERBENCH_POSTGRES_DSN")
	if dsn == "" {
		enginetest.RequireServer(t, Installed())
		m, err := engine.Open(context.Background(), engine.Config{Name: "postgres", Dir: enginetest.ServerDir(t)})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		dsn = fmt.Sprintf("host=%s user=%s dbname=tierbench", m.(managedEngine).managed.RunDir, superuser)
	}
	h := harness
	h.Open = func(t *testing.T) engine.Engine {
		e, err := engine.Open(context.Background(), engine.Config{Name: "postgres", DSN: dsn})
		if err != nil {
			t.Fatal(err)
		}
		if info, err := e.Info(context.Background()); err != nil || info.Settings["client_io"] != "poller" {
			t.Errorf("client_io %q (%v): auto with no session count should keep the poller", info.Settings["client_io"], err)
		}
		return e
	}
	enginetest.Run(t, h)
}

// TestSessionCancel: a statement run under a context that never ends stops when
// another goroutine calls the session's Cancel (engine.Canceller), on a thread session
// and on the poller, and the session works afterwards.
func TestSessionCancel(t *testing.T) {
	enginetest.RequireServer(t, Installed())
	enginetest.SessionCancel(t, func(t *testing.T, io engine.ClientIO) engine.Engine {
		e, err := engine.Open(context.Background(), engine.Config{Name: "postgres", Dir: enginetest.ServerDir(t), ClientIO: io})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}, harness.LongSQL)
}

func TestUnreachableDSNHidesPassword(t *testing.T) {
	for _, dsn := range []string{
		"postgres://bob:Sup3rSecret@127.0.0.1:1/tpch?connect_timeout=2",
		"host=127.0.0.1 port=1 user=bob password=Sup3rSecret dbname=tpch connect_timeout=2",
		"host=/nonexistent/socketdir user=bob password=Sup3rSecret",
		"postgres://bob:Sup3rSecret@[bad",
	} {
		_, err := engine.Open(context.Background(), engine.Config{Name: "postgres", DSN: dsn})
		if err == nil {
			t.Fatalf("%s: no error", dsn)
		}
		msg := err.Error()
		t.Log(msg)
		if strings.Contains(msg, "Sup3rSecret") || strings.Contains(msg, "\n") {
			t.Errorf("error leaks the password or spans lines: %q", msg)
		}
		if !strings.Contains(msg, "bad") && !strings.Contains(msg, "127.0.0.1") && !strings.Contains(msg, "/nonexistent/socketdir") {
			t.Errorf("error does not name the host or socket: %q", msg)
		}
	}
}

func TestMissingBinaries(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	old := binGlobs
	binGlobs = []string{"/nonexistent/*/bin"}
	defer func() { binGlobs = old }()
	_, err := engine.Open(context.Background(), engine.Config{Name: "postgres", Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "apt-get install postgresql") {
		t.Fatalf("got %v, want a hint to apt-get install postgresql", err)
	}
}

func TestStartFailureCleansUp(t *testing.T) {
	t.Parallel()
	enginetest.RequireServer(t, Installed())
	dir := enginetest.ServerDir(t)
	_, err := engine.Open(context.Background(), engine.Config{
		Name: "postgres", Dir: dir, Settings: map[string]string{"no_such_setting": "1"},
	})
	if err == nil {
		t.Fatal("a bad setting started")
	}
	t.Log(err)
	if _, statErr := os.Stat(filepath.Join(dir, "postgres")); !os.IsNotExist(statErr) {
		t.Errorf("cluster dir left after a failed start: %v", statErr)
	}
}

func TestKeepAndReuse(t *testing.T) {
	t.Parallel()
	enginetest.RequireServer(t, Installed())
	dir := enginetest.ServerDir(t)
	ctx := context.Background()
	cfg := engine.Config{Name: "postgres", Dir: dir, Database: "tpch", Keep: true}
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB().Exec("CREATE TABLE kept (a INTEGER); INSERT INTO kept VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "postgres", "PG_VERSION")); err != nil {
		t.Fatalf("Keep: cluster gone: %v", err)
	}
	cfg.Keep = false // a reused cluster is never removed: this run did not create it
	e, err = engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var a int
	if err := e.DB().QueryRow("SELECT a FROM kept").Scan(&a); err != nil || a != 7 {
		t.Errorf("reused cluster: a=%d err=%v", a, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "postgres", "PG_VERSION")); err != nil {
		t.Errorf("reused cluster removed: %v", err)
	}
}

// TestServerDiesWithTierbench kills a process running a managed cluster with SIGKILL
// and checks that the server goes with it (Pdeathsig).
func TestServerDiesWithTierbench(t *testing.T) {
	if dir := os.Getenv("TIERBENCH_PDEATHSIG_HELPER"); dir != "" {
		e, err := engine.Open(context.Background(), engine.Config{Name: "postgres", Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("PID %d %s\n", e.(engine.Server).ServerPID(), e.(managedEngine).managed.RunDir)
		select {}
	}
	enginetest.RequireServer(t, Installed())
	dir := enginetest.ServerDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerDiesWithTierbench$")
	cmd.Env = append(os.Environ(), "TIERBENCH_PDEATHSIG_HELPER="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	var runDir string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "PID %d %s", &pid, &runDir); err == nil {
			t.Cleanup(func() { os.RemoveAll(runDir) }) // the killed helper could not
			break
		}
	}
	if pid == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("helper did not start a server")
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(-pid, syscall.SIGKILL)
			t.Fatalf("server %d outlived its parent", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// alive reports whether pid runs; a zombie nobody has reaped yet does not count.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func TestInitdbFailureCleansUp(t *testing.T) {
	bin := enginetest.ServerDir(t)
	for name, script := range map[string]string{
		"initdb":   "#!/bin/sh\necho 'initdb: error: simulated failure' >&2\nexit 1\n",
		"postgres": "#!/bin/sh\nexit 1\n",
	} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	dir := enginetest.ServerDir(t)
	_, err := engine.Open(context.Background(), engine.Config{Name: "postgres", Dir: dir, WALDir: filepath.Join(dir, "wal")})
	if err == nil || !strings.Contains(err.Error(), "simulated failure") {
		t.Fatalf("got %v, want the initdb output", err)
	}
	for _, sub := range []string{"postgres", "wal/postgres-wal"} {
		if _, statErr := os.Stat(filepath.Join(dir, sub)); !os.IsNotExist(statErr) {
			t.Errorf("%s left after a failed initdb: %v", sub, statErr)
		}
	}
}

// TestConnectionLimit: a managed cluster's max_connections follows the run's sessions
// (PostgreSQL's default, 100, is below the check's 150) unless the user set it.
func TestConnectionLimit(t *testing.T) {
	t.Parallel()
	enginetest.RequireServer(t, Installed())
	enginetest.ConnectionLimit(t, func(t *testing.T, cfg engine.Config) engine.Engine {
		cfg.Name, cfg.Dir = "postgres", enginetest.ServerDir(t)
		e, err := engine.Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}, "SHOW max_connections")
}
