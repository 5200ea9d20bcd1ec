package instance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"tierbench/internal/exitstatus"
)

// Command prepares a program to run as u, in its own process group, killed with
// deathSignal when tierbench dies.
func (u User) Command(deathSignal syscall.Signal, path string, args ...string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.SysProcAttr = u.sysProcAttr(deathSignal)
	cmd.Env = append(append(os.Environ(), "LC_ALL=C"), u.Env...)
	cmd.Dir = "/"
	return cmd
}

// Run runs a setup program (initdb, install-db) to completion; on failure the error
// carries the end of its output.
func Run(cmd *exec.Cmd) error {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s failed: %w: %s", cmd.Path, err, tail(errorLines(out.String()), 15))
	}
	return nil
}

// Process is a running server.
type Process struct {
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	waitErr error
	endedAt time.Time
	// ready says WaitReady saw the server answer, asked that Stop asked it to end:
	// an end after the one and before the other is a death during the run (Stop's
	// DiedError), not a failed start or a stop.
	ready, asked atomic.Bool
}

// Start starts cmd with its output appended to logPath.
func Start(cmd *exec.Cmd, logPath string) (*Process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open server log: %w", err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	logFile.Close()
	p := &Process{cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		p.endedAt = time.Now()
		close(p.done)
	}()
	return p, nil
}

// PID is the server's process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// WaitReady calls try until it succeeds, the server exits or timeout passes; the error
// then carries the end of the server log.
func (p *Process) WaitReady(ctx context.Context, timeout time.Duration, try func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		tctx, tcancel := context.WithTimeout(ctx, 2*time.Second)
		last = try(tctx)
		tcancel()
		if last == nil {
			p.ready.Store(true)
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("server exited during startup (%v): %s", p.waitErr, p.LogTail(15))
		case <-ctx.Done():
			return fmt.Errorf("server not ready after %v (%v): %s", timeout, last, p.LogTail(15))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Stop sends sig, waits up to timeout for the server to exit, then kills it. A
// server that answered once (WaitReady) and has ended before Stop asked it to (kill
// -9, a crash) is a *exitstatus.DiedError naming the program and how it ended: every
// statement sent to it after that failed because it had gone.
func (p *Process) Stop(sig syscall.Signal, timeout time.Duration) error {
	if p.asked.Swap(true) {
		<-p.done // stopped already: a second Close
		return nil
	}
	died := func() error {
		return &exitstatus.DiedError{Who: "the database server " + filepath.Base(p.cmd.Path), PID: p.PID(),
			How: exitstatus.Text(p.waitErr), Then: "its sessions failed from then on", At: p.endedAt}
	}
	select {
	case <-p.done:
		if !p.ready.Load() {
			return nil // a start that failed says so itself (WaitReady)
		}
		return died()
	default:
	}
	// A server killed a moment ago may not have been reaped yet: it is exiting (its
	// sockets already closed, which is how its sessions failed) or a zombie. On a
	// loaded host that window is long enough for a run to fail and stop the server
	// in it; the stop's own signal would then pass for the cause.
	if p.ready.Load() && exiting(p.PID()) {
		<-p.done
		return died()
	}
	switch err := p.cmd.Process.Signal(sig); {
	case errors.Is(err, os.ErrProcessDone):
		if p.ready.Load() {
			// reaped since the checks above, before this signal: it ended on its own
			<-p.done
			return died()
		}
	case err != nil:
		return fmt.Errorf("signal server: %w", err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(timeout):
	}
	// Kill the whole group: PostgreSQL's backends too.
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
	return fmt.Errorf("server did not stop within %v and was killed", timeout)
}

// LogTail is the end of the server log, on one line, for error messages.
func (p *Process) LogTail(lines int) string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return "(no server log: " + err.Error() + ")"
	}
	return "server log: " + tail(errorLines(string(b)), lines)
}

// errorLines keeps the lines that report errors, when there are any: the notes a server
// writes while starting bury the one line that says what went wrong.
func errorLines(log string) string {
	var keep []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "ERROR") || strings.Contains(l, "FATAL") || strings.Contains(l, "PANIC") ||
			strings.Contains(l, "error:") {
			keep = append(keep, l)
		}
	}
	if len(keep) == 0 {
		return log
	}
	return strings.Join(keep, "\n")
}

func tail(s string, lines int) string {
	all := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, " | ")
}

// exiting says whether process pid, a child of this process not yet waited for by
// the caller, has begun to exit, is a zombie or is gone (reaped by the wait in
// flight), from /proc/PID/stat: no such file, its state Z or X, or PF_EXITING (0x4)
// in its flags. False when /proc cannot be read otherwise (not Linux).
var exiting = func(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	return statExiting(string(b))
}

// statExiting reads a /proc/PID/stat line: the fields after the command's closing
// parenthesis are state, ppid, pgrp, session, tty_nr, tpgid, flags, ...
func statExiting(stat string) bool {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 7 {
		return false
	}
	if f[0] == "Z" || f[0] == "X" {
		return true
	}
	flags, err := strconv.ParseUint(f[6], 10, 64)
	return err == nil && flags&0x4 != 0
}
