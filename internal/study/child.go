package study

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// runChild runs cmd, one phase's tierbench command, in a process group of its own,
// so that the terminal's Ctrl-C reaches the study alone, which passes on one
// SIGTERM (a second signal would kill the child before it stopped its server and
// unmounted its devices). Should the study itself die, the child gets SIGTERM from
// the kernel (childAttr). When ctx ends the child gets SIGTERM, and killAfter later,
// if it is still there, SIGKILL with its whole group.
// It returns what the study did to stop the child and Wait's error, so that a cause
// names who ended it.
func runChild(ctx context.Context, cmd *exec.Cmd, killAfter time.Duration) (stopped, error) {
	// The kernel's parent-death signal follows the thread that started the child:
	// keep this goroutine on it until the child is gone.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return notStopped, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return notStopped, err
	case <-ctx.Done():
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(killAfter)
	defer t.Stop()
	select {
	case err := <-done:
		return terminated, err
	case <-t.C:
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return killed, <-done
}

// stopped is what the study did to stop a child.
type stopped int

const (
	notStopped stopped = iota
	// terminated: SIGTERM, and the child ended within the grace period.
	terminated
	// killed: SIGTERM, then SIGKILL to its process group when the grace ran out.
	killed
)

// text says what the study did, after "timed out ...; " or "interrupted; ".
func (s stopped) text(grace time.Duration) string {
	switch s {
	case terminated:
		return "stopped with SIGTERM"
	case killed:
		return fmt.Sprintf("it did not stop within %s of SIGTERM and was killed with SIGKILL", grace)
	}
	return ""
}
