package instance

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"tierbench/internal/rundir"
)

// orphanStopTimeout bounds the wait for a dead run's server to exit after SIGKILL.
const orphanStopTimeout = 10 * time.Second

// RemoveDead removes the run directories PARENT/PREFIX<pid>-* of processes that are
// gone, and stops the servers still running in them (their command lines name the
// directory: PostgreSQL's -k DIR, MariaDB's --socket=DIR/...), which happens when
// tierbench was killed before it could stop them. A directory is left alone while its
// process lives or while anyone holds its lock (a process of another PID namespace
// sharing /tmp), and so is any name of another form (those of older versions, which
// carry no process id). Once a directory's servers are stopped, leftovers (nil: none)
// removes what they left outside it, before the directory goes. It returns the
// directories it removed.
func RemoveDead(parent, prefix string, leftovers func(runDir string)) []string {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, random, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || random == "" || Alive(pid) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		// Taking the lock keeps a second cleaner (and a live owner elsewhere) out.
		lock, err := rundir.Acquire(dir, "tierbench (pid "+strconv.Itoa(os.Getpid())+"): removing a dead process's run directory")
		if err != nil {
			continue
		}
		stopServersIn(dir)
		if leftovers != nil {
			leftovers(dir)
		}
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
		lock.Release()
	}
	return removed
}

// Alive reports whether a process pid exists; a zombie nobody has reaped yet counts
// as gone.
func Alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && err != syscall.EPERM {
		return false
	}
	return !zombie(pid)
}

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses; the state follows
	// the last ')'.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// stopServersIn kills, with their process groups, the processes whose command line
// names dir or a file in it, and waits (bounded) until they are gone.
func stopServersIn(dir string) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	var killed []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err != nil || !namesDir(cmdline, dir) {
			continue
		}
		// Managed servers lead their own process group (sysProcAttr): PostgreSQL's
		// backends go with the postmaster.
		if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
			syscall.Kill(-pid, syscall.SIGKILL)
		} else {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		killed = append(killed, pid)
	}
	// Until the process is gone, not only dead: a server restarted on the same data
	// reads the old pid from its lock file (postmaster.pid) and refuses to start while
	// that pid exists, even as a zombie its new parent has not reaped yet.
	deadline := time.Now().Add(orphanStopTimeout)
	for _, pid := range killed {
		for syscall.Kill(pid, 0) != syscall.ESRCH && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// namesDir reports whether one of the NUL-separated arguments of cmdline is dir or
// holds a path inside it.
func namesDir(cmdline []byte, dir string) bool {
	for _, arg := range strings.Split(string(cmdline), "\x00") {
		if arg == dir || strings.Contains(arg, dir+"/") {
			return true
		}
	}
	return false
}
