package instance

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tierbench/internal/rundir"
)

// childEnv makes the test binary a stand-in for a tierbench that started a server:
// it makes a run directory under $TMPDIR with the prefix the variable holds, starts a
// "server" naming that directory in its command line (its own process group and no
// parent-death signal, as a server that outlives tierbench), prints both and waits to
// be killed.
const childEnv = "TIERBENCH_INSTANCE_TEST_CHILD"

func TestMain(m *testing.M) {
	if prefix := os.Getenv(childEnv); prefix != "" {
		dir, _, err := User{}.RunDir(prefix, nil)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		server := exec.Command("sh", "-c", "while :; do sleep 0.2; done", filepath.Join(dir, "server.sock"))
		server.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := server.Start(); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println(dir, server.Process.Pid)
		time.Sleep(time.Minute) // bounded: the test kills it long before
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRemoveDead: a run directory whose tierbench was killed with SIGKILL is removed
// by the next run, and the server still running in it is stopped; a live process's
// directory, a dead one's that someone holds locked, and names of another form stay.
func TestRemoveDead(t *testing.T) {
	parent := t.TempDir()
	const prefix = "tierbench-test-"
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"="+prefix, "TMPDIR="+parent)
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	var orphan int
	t.Cleanup(func() {
		child.Process.Kill()
		child.Wait()
		if orphan > 0 {
			syscall.Kill(-orphan, syscall.SIGKILL)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	fields := strings.Fields(line)
	if err != nil || len(fields) != 2 {
		t.Fatalf("child said %q (%v)", line, err)
	}
	deadDir := fields[0]
	if orphan, err = strconv.Atoi(fields[1]); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(parent, prefix+strconv.Itoa(child.Process.Pid)+"-"); !strings.HasPrefix(deadDir, want) {
		t.Errorf("run directory %s does not carry its owner's pid (%s...)", deadDir, want)
	}

	// While the child lives, its directory stays.
	var cleaned []string
	leftovers := func(dir string) {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("leftovers of %s called after the directory went: %v", dir, err)
		}
		if Alive(orphan) {
			t.Errorf("leftovers of %s called while its server (pid %d) runs", dir, orphan)
		}
		cleaned = append(cleaned, dir)
	}
	if got := RemoveDead(parent, prefix, leftovers); len(got) != 0 {
		t.Fatalf("removed %v while their process lives", got)
	}
	// This process's own directory, a dead process's that someone holds locked (as a
	// process in another PID namespace would), and an older version's name.
	t.Setenv("TMPDIR", parent)
	live, liveLock, err := User{}.RunDir(prefix, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer liveLock.Release()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	held := filepath.Join(parent, prefix+strconv.Itoa(gone.Process.Pid)+"-77")
	old := filepath.Join(parent, prefix+"3520938965")
	for _, d := range []string{held, old} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	heldLock, err := rundir.Acquire(held, "elsewhere")
	if err != nil {
		t.Fatal(err)
	}
	defer heldLock.Release()

	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	if !Alive(orphan) {
		t.Fatal("the server died with its parent: the test needs it orphaned")
	}
	got := RemoveDead(parent, prefix, leftovers)
	if len(got) != 1 || got[0] != deadDir {
		t.Errorf("removed %v, want only %s", got, deadDir)
	}
	if len(cleaned) != 1 || cleaned[0] != deadDir {
		t.Errorf("leftovers were removed for %v, want only %s", cleaned, deadDir)
	}
	if _, err := os.Stat(deadDir); !os.IsNotExist(err) {
		t.Errorf("the killed process's directory: %v", err)
	}
	if Alive(orphan) {
		t.Errorf("its server (pid %d) still runs", orphan)
	}
	for _, d := range []string{live, held, old} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was touched: %v", d, err)
		}
	}
}

func TestNamesDir(t *testing.T) {
	for _, tc := range []struct {
		cmdline string
		want    bool
	}{
		{"postgres\x00-D\x00/data\x00-k\x00/tmp/tb-pg-1-2\x00", true},
		{"mariadbd\x00--socket=/tmp/tb-pg-1-2/mysqld.sock\x00", true},
		{"postgres\x00-k\x00/tmp/tb-pg-1-23\x00", false},
		{"vi\x00/tmp/tb-pg-1-2.txt\x00", false},
	} {
		if got := namesDir([]byte(tc.cmdline), "/tmp/tb-pg-1-2"); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.cmdline, got, tc.want)
		}
	}
}
