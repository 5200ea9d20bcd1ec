package study

import (
	"context"
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
func runChild(ctx context.Context, cmd *exec.Cmd, killAfter time.Duration) error {
	// The kernel's parent-death signal follows the thread that started the child:
	// keep this goroutine on it until the child is gone.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(killAfter)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return <-done
}
