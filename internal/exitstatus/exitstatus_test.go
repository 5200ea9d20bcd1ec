package exitstatus

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"
)

// TestText: each way a child ends, worded as a cause, from real processes.
func TestText(t *testing.T) {
	for _, tc := range []struct {
		name string
		cmd  *exec.Cmd
		want string
		sig  syscall.Signal
	}{
		{"success", exec.Command("sh", "-c", "exit 0"), "exit status 0", 0},
		{"exit status", exec.Command("sh", "-c", "exit 3"), "exit status 3", 0},
		{"SIGKILL", exec.Command("sh", "-c", "kill -KILL $$"), "killed by SIGKILL", syscall.SIGKILL},
		{"SIGTERM", exec.Command("sh", "-c", "kill -TERM $$"), "killed by SIGTERM", syscall.SIGTERM},
		{"SIGSEGV", exec.Command("sh", "-c", "kill -SEGV $$"), "killed by SIGSEGV", syscall.SIGSEGV},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cmd.Run()
			if got := Text(err); got != tc.want {
				t.Errorf("%q, want %q (%v)", got, tc.want, err)
			}
			sig, ok := Signal(err)
			if ok != (tc.sig != 0) || sig != tc.sig {
				t.Errorf("signal %v %v, want %v", sig, ok, tc.sig)
			}
		})
	}
	if got := Text(errors.New(`exec: "nope": executable file not found in $PATH`)); got != `exec: "nope": executable file not found in $PATH` {
		t.Errorf("a command that did not start: %q", got)
	}
}
