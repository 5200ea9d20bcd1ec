package exitstatus

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestCauseFirst: the deaths an error holds, anywhere among the errors it joins and
// under a wrapper that adds nothing they do not say, come first, the earlier death
// before the later; the other errors follow in their order.
func TestCauseFirst(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	emulator := &DiedError{Who: "the emulator's server", PID: 7, How: "killed by SIGKILL", Then: "its devices failed every request from then on", At: t0}
	server := &DiedError{Who: "the database server postgres", PID: 9, How: "exit status 2", Then: "its sessions failed from then on", At: t0.Add(time.Second)}
	failed := errors.New("27.7% of transactions failed")
	io := errors.New("engine I/O: connection refused")
	unmount := errors.New("unmount /mnt: busy")
	err := errors.Join(failed, errors.Join(io, fmt.Errorf("postgres: close: %w", server)), errors.Join(emulator, unmount))
	want := "the emulator's server (pid 7) died during the run (killed by SIGKILL): its devices failed every request from then on\n" +
		"the database server postgres (pid 9) died during the run (exit status 2): its sessions failed from then on\n" +
		"27.7% of transactions failed\nengine I/O: connection refused\nunmount /mnt: busy"
	got := CauseFirst(err)
	if got.Error() != want {
		t.Errorf("CauseFirst:\n%s\nwant\n%s", got, want)
	}
	var d *DiedError
	if !errors.As(got, &d) || d != emulator || !errors.Is(got, failed) || !errors.Is(got, unmount) {
		t.Errorf("the errors are not all kept: %v", got)
	}
	if CauseFirst(failed) != failed || CauseFirst(nil) != nil {
		t.Error("an error without a death is not left as it is")
	}
	died, rest := Split(fmt.Errorf("postgres: close: %w", server))
	if len(died) != 1 || died[0] != server || rest != nil {
		t.Errorf("Split of a wrapped death: %v, %v", died, rest)
	}
}
