package rundir

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// holdEnv makes the test binary a process that locks the directory it names, says so
// on stdout and waits to be killed.
const holdEnv = "TIERBENCH_RUNDIR_TEST_HOLD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdEnv); dir != "" {
		if _, err := Acquire(dir, "tierbench oltp run --out "+dir); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		time.Sleep(time.Minute) // bounded: the test kills it long before
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestLockRefusesSecond: a second Acquire of a held directory is refused with a
// message naming the holder; after Release the directory is free and the lock file
// gone.
func TestLockRefusesSecond(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir, "tierbench tpcc run --out "+dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(dir, "tierbench tpcc run --out "+dir)
	var busy *BusyError
	if !errors.As(err, &busy) {
		t.Fatalf("second Acquire: %v, want a *BusyError", err)
	}
	h := busy.Holder
	if h.PID != os.Getpid() || h.Command != "tierbench tpcc run --out "+dir || time.Since(h.Since) < 0 || time.Since(h.Since) > time.Hour {
		t.Errorf("holder %+v", h)
	}
	want := fmt.Sprintf("%s is in use by another tierbench (pid %d, since %s: tierbench tpcc run --out %s): wait for it to finish, or choose another directory",
		dir, os.Getpid(), h.Since.Local().Format("2006-01-02 15:04:05"), dir)
	if err.Error() != want {
		t.Errorf("message\n%s\nwant\n%s", err, want)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !os.IsNotExist(err) {
		t.Errorf("lock file after Release: %v", err)
	}
	l2, err := Acquire(dir, "again")
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	l2.Release()
}

// TestLockOfKilledProcess: a process that holds the lock keeps others out, naming
// itself; killed with SIGKILL, its lock file stays behind but blocks no one.
func TestLockOfKilledProcess(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holdEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("holder said %q (%v)", line, err)
	}
	_, err = Acquire(dir, "second")
	var busy *BusyError
	if !errors.As(err, &busy) || busy.Holder.PID != cmd.Process.Pid || busy.Holder.Command != "tierbench oltp run --out "+dir {
		t.Fatalf("while the holder lives: %v (holder %+v), want it named", err, busy)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(dir, LockFile)); err != nil {
		t.Fatalf("the killed holder's lock file: %v (the test needs it left behind)", err)
	}
	l, err := Acquire(dir, "after the kill")
	if err != nil {
		t.Fatalf("a dead holder's lock blocks: %v", err)
	}
	defer l.Release()
	if got := readHolder(filepath.Join(dir, LockFile)); got.PID != os.Getpid() || got.Command != "after the kill" {
		t.Errorf("lock file records %+v, want this process", got)
	}
}

func TestBusyWithoutRecord(t *testing.T) {
	err := &BusyError{Dir: "/out"}
	if !strings.HasPrefix(err.Error(), "/out is in use by another tierbench: ") {
		t.Error(err)
	}
}
