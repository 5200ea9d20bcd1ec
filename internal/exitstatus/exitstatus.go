package exitstatus

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// Text says how a process that exec.Cmd.Wait returned err for ended: "exit status 0"
// for nil, "exit status N", "killed by SIGNAME", or err's own text when it did not
// run (it could not start, its output could not be copied).
func Text(err error) string {
	if err == nil {
		return "exit status 0"
	}
	if sig, ok := Signal(err); ok {
		return "killed by " + unix.SignalName(sig)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Sprintf("exit status %d", ee.ExitCode())
	}
	return err.Error()
}

// Signal is the signal that ended the process, when one did.
func Signal(err error) (syscall.Signal, bool) {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0, false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, false
	}
	return ws.Signal(), true
}
