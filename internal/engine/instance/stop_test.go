package instance

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestInstanceStop: an instance whose data stays gets the clean signal (the server
// sees it and exits); one whose data is removed gets the discarding one; either way
// what the run created and the run directory go, and a kept data directory stays.
func TestInstanceStop(t *testing.T) {
	for _, tc := range []struct {
		name       string
		removeData bool
		wantMarker bool // the server saw SIGTERM
	}{
		{"kept", false, true},
		{"removed", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			data, run, created := filepath.Join(dir, "data"), filepath.Join(dir, "run"), filepath.Join(dir, "created")
			for _, d := range []string{data, run, created} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			marker, ready := filepath.Join(dir, "term"), filepath.Join(dir, "ready")
			// A "server" that records SIGTERM and exits on it; it says when its trap is set.
			cmd := exec.Command("sh", "-c", `trap 'echo term > "$0"; exit 0' TERM; : > "$1"; while :; do sleep 0.05; done`, marker, ready)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			p, err := Start(cmd, filepath.Join(dir, "log"))
			if err != nil {
				t.Fatal(err)
			}
			// Wait for the trap, not a fixed time: a loaded host may take longer than any.
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				if _, err := os.Stat(ready); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the shell did not set its trap in 30 s")
				}
			}
			i := &Instance{DataDir: data, RunDir: run, Proc: p, RemoveOnStop: []string{created}}
			if tc.removeData {
				i.RemoveOnStop = append(i.RemoveOnStop, data)
			}
			if i.RemovesData() != tc.removeData || i.ServerPID() != cmd.Process.Pid {
				t.Fatalf("RemovesData %v, ServerPID %d (process %d)", i.RemovesData(), i.ServerPID(), cmd.Process.Pid)
			}
			if err := i.Stop(Stopping{Discard: syscall.SIGKILL, DiscardTimeout: 5 * time.Second, Clean: syscall.SIGTERM, CleanTimeout: 5 * time.Second}); err != nil {
				t.Fatal(err)
			}
			_, markErr := os.Stat(marker)
			if (markErr == nil) != tc.wantMarker {
				t.Errorf("server saw SIGTERM: %v, want %v", markErr == nil, tc.wantMarker)
			}
			for _, gone := range []string{run, created} {
				if _, err := os.Stat(gone); !os.IsNotExist(err) {
					t.Errorf("%s still there after Stop: %v", gone, err)
				}
			}
			if _, err := os.Stat(data); (err == nil) == tc.removeData {
				t.Errorf("data directory present %v, want %v", err == nil, !tc.removeData)
			}
			if i.RunDir != "" || i.RemoveOnStop != nil {
				t.Errorf("after Stop: RunDir %q RemoveOnStop %v", i.RunDir, i.RemoveOnStop)
			}
			// A second Stop (a failed start's cleanup after Close) does nothing.
			if err := i.Stop(Stopping{Discard: syscall.SIGKILL, Clean: syscall.SIGTERM}); err != nil {
				t.Errorf("second Stop: %v", err)
			}
		})
	}
	if pid := (&Instance{}).ServerPID(); pid != 0 {
		t.Errorf("ServerPID without a process = %d", pid)
	}
}
