package servertest

import (
	"bufio"
	"context"
	"errors"
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

// childEnv makes the test binary a tierbench that opens a managed server ("NAME DIR":
// its data kept in DIR/db, DIR traversable), says "ready PID ACL" and waits to be
// killed.
const childEnv = "TIERBENCH_SERVERTEST_CHILD"

// runPrefix is the start of each server's run directories under $TMPDIR.
var runPrefix = map[string]string{"postgres": "tierbench-pg-", "mysql": "tierbench-mysql-"}

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		name, dir, _ := strings.Cut(spec, " ")
		var noSync map[string]string
		for _, s := range Servers {
			if s.Name == name {
				noSync = s.NoSync
			}
		}
		e, err := engine.Open(context.Background(), engine.Config{Name: name, Dir: filepath.Join(dir, "db"), Keep: true,
			Traversable: []string{dir}, Settings: noSync})
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		info, err := e.Info(context.Background())
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("ready", e.(engine.Server).ServerPID(), info.Settings["server_user_acl"])
		time.Sleep(2 * time.Minute) // bounded: the test kills it long before
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestManagedLifecycle runs each server engine through what happens to tierbench
// outside a clean run: an --out made by mktemp -d (0700) while tierbench runs as
// root, tierbench killed with SIGKILL, a start that fails after creating the
// instance, and a run that needs a database that is not there.
func TestManagedLifecycle(t *testing.T) {
	tmp := enginetest.ServerDir(t) // the run directories of this test's servers
	t.Setenv("TMPDIR", tmp)
	for _, s := range Servers {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			enginetest.RequireServer(t, s.Installed())
			// In order: each looks for what the one before left in $TMPDIR.
			killedThenReopened(t, s, tmp)
			failedStartLeavesNothing(t, s, tmp)
			mustExistCreatesNothing(t, s, tmp)
		})
	}
}

// runDirs are the run directories of process pid under tmp.
func runDirs(t *testing.T, s Server, tmp string, pid int) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(tmp, fmt.Sprintf("%s%d-*", runPrefix[s.Name], pid)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// killedThenReopened: a tierbench opens a server with its data in a 0700 --out (as
// root, the server's user is let through it, and the result says so), then is killed
// with SIGKILL. The next tierbench reopens the kept data and removes the dead one's
// run directory in $TMPDIR; no process of the dead one's server is left.
func killedThenReopened(t *testing.T, s Server, tmp string) {
	out, err := os.MkdirTemp("", "tierbench-out-") // 0700, as mktemp -d
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"="+s.Name+" "+out)
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	said := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		said <- strings.TrimSpace(line)
	}()
	var line string
	select {
	case line = <-said:
	case <-time.After(3 * time.Minute):
		t.Fatal("the child did not open its server within 3 minutes")
	}
	var serverPID int
	var acl string
	if n, _ := fmt.Sscanf(line, "ready %d", &serverPID); n != 1 {
		t.Fatalf("child: %s", line)
	}
	acl = strings.TrimSpace(strings.TrimPrefix(line, fmt.Sprintf("ready %d", serverPID)))
	if os.Geteuid() == 0 { // the servers run as users named as the engines: postgres, mysql
		if want := "search for " + s.Name + " on " + out; acl != want {
			t.Errorf("server_user_acl %q, want %q", acl, want)
		}
	}
	dead := runDirs(t, s, tmp, child.Process.Pid)
	if len(dead) != 1 {
		t.Fatalf("the child's run directories: %v, want one", dead)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	if _, err := os.Stat(dead[0]); err != nil {
		t.Fatalf("the killed child's run directory: %v (the test needs it left behind)", err)
	}

	e, err := engine.Open(context.Background(), engine.Config{Name: s.Name, Dir: filepath.Join(out, "db"), Keep: true,
		Traversable: []string{out}, Settings: s.NoSync})
	if err != nil {
		t.Fatalf("reopen after the kill: %v", err)
	}
	defer e.Close()
	if _, err := os.Stat(dead[0]); !os.IsNotExist(err) {
		t.Errorf("the killed child's run directory %s is still there (%v)", dead[0], err)
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", serverPID)); err == nil && strings.Contains(string(b), dead[0]) {
		t.Errorf("the killed child's server (pid %d) still runs", serverPID)
	}
	var one int
	if err := e.DB().QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Errorf("the reopened server: %v", err)
	}
}

// failedStartLeavesNothing: a setting the server would refuse is refused before
// anything is created; a start that fails after creating the instance (a setting the
// server parses but cannot start with) removes what it created, even when the data
// was to be kept. Each error names the engine once.
func failedStartLeavesNothing(t *testing.T, s Server, tmp string) {
	dir := enginetest.ServerDir(t)
	db := filepath.Join(dir, "db")
	_, err := engine.Open(context.Background(), engine.Config{Name: s.Name, Dir: db, Keep: true,
		Settings: map[string]string{"tierbench_no_such_setting": "1"}})
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Name != "tierbench_no_such_setting" || strings.Count(err.Error(), s.Name) != 1 {
		t.Errorf("error %v: want the setting refused, naming the engine once", err)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("%s created for a refused setting (%v)", db, err)
	}
	if left := runDirs(t, s, tmp, os.Getpid()); len(left) != 0 {
		t.Errorf("run directories created for a refused setting: %v", left)
	}
	_, err = engine.Open(context.Background(), engine.Config{Name: s.Name, Dir: db, Keep: true, Settings: s.FailsAtStart})
	if err == nil {
		t.Fatalf("a server with %v started", s.FailsAtStart)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, s.Name+": start the server: server exited during startup") || strings.Contains(msg, s.Name+": "+s.Name+":") {
		t.Errorf("error %q: want it to begin %q, naming the engine once", msg, s.Name+": start the server: server exited during startup")
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("%s left behind (%v)", db, err)
	}
	if left := runDirs(t, s, tmp, os.Getpid()); len(left) != 0 {
		t.Errorf("run directories left: %v", left)
	}
}

// mustExistCreatesNothing: a run that needs a kept database (Config.MustExist) on a
// directory without one is refused before anything is created.
func mustExistCreatesNothing(t *testing.T, s Server, tmp string) {
	dir := enginetest.ServerDir(t)
	db := filepath.Join(dir, "db")
	_, err := engine.Open(context.Background(), engine.Config{Name: s.Name, Dir: db, Keep: true, MustExist: true})
	var nd *engine.NoDatabaseError
	if !errors.As(err, &nd) || err.Error() != s.Name+": no database in "+db+": load one first (nothing was created)" {
		t.Errorf("error %v, want a *NoDatabaseError for %s", err, db)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("%s created (%v)", db, err)
	}
	if left := runDirs(t, s, tmp, os.Getpid()); len(left) != 0 {
		t.Errorf("run directories created: %v", left)
	}
}
