package instance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"tierbench/internal/exitstatus"
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

// TestStopSaysTheServerDied: a server that answered and then died before Stop asked it
// to (kill -9) is a DiedError naming the program, its pid and its signal, and what the
// instance created is removed all the same; one that died before it ever answered is
// a failed start, which WaitReady reports, not a death; a second Stop says nothing.
func TestStopSaysTheServerDied(t *testing.T) {
	start := func(t *testing.T, dir string) *Process {
		t.Helper()
		cmd := exec.Command("sleep", "600")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		p, err := Start(cmd, filepath.Join(dir, "log"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-p.PID(), syscall.SIGKILL) })
		return p
	}
	stopping := Stopping{Discard: syscall.SIGKILL, DiscardTimeout: 5 * time.Second, Clean: syscall.SIGTERM, CleanTimeout: 5 * time.Second}

	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	os.Mkdir(run, 0o755)
	p := start(t, dir)
	if err := p.WaitReady(context.Background(), time.Minute, func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(p.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	i := &Instance{RunDir: run, Proc: p}
	err := i.Stop(stopping)
	var died *exitstatus.DiedError
	want := fmt.Sprintf("the database server sleep (pid %d) died during the run (killed by SIGKILL): its sessions failed from then on", p.PID())
	if !errors.As(err, &died) || err.Error() != want || died.At.IsZero() {
		t.Errorf("Stop after kill -9: %v\nwant %s", err, want)
	}
	if _, err := os.Stat(run); !os.IsNotExist(err) {
		t.Errorf("the run directory is left after the server died: %v", err)
	}
	if err := p.Stop(syscall.SIGTERM, time.Second); err != nil {
		t.Errorf("a second Stop: %v", err)
	}

	early := start(t, dir)
	syscall.Kill(early.PID(), syscall.SIGKILL)
	<-early.done
	if err := early.Stop(syscall.SIGTERM, time.Second); err != nil {
		t.Errorf("Stop of a server that never answered: %v", err)
	}

	alive := start(t, dir)
	if err := alive.WaitReady(context.Background(), time.Minute, func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := alive.Stop(syscall.SIGTERM, 5*time.Second); err != nil {
		t.Errorf("Stop of a server alive to the end: %v", err)
	}
}

// statExiting reads the state and PF_EXITING from /proc/PID/stat lines, a command
// with spaces and parentheses in its name included.
func TestStatExiting(t *testing.T) {
	for _, tc := range []struct {
		stat string
		want bool
	}{
		{"123 (mariadbd) S 1 123 123 0 -1 4194560 500 0 0 0", false},
		{"123 (mariadbd) Z 1 123 123 0 -1 4194560 500 0 0 0", true},
		{"123 (mariadbd) X 1 123 123 0 -1 4194560 500 0 0 0", true},
		{"123 (mariadbd) R 1 123 123 0 -1 4194564 500 0 0 0", true}, // 4194560 | PF_EXITING
		{"123 (a (b) c) D 1 123 123 0 -1 4 500", true},
		{"123 (a (b) c) S 1 123 123 0 -1 8 500", false},
		{"garbage", false},
		{"123 (x) S 1", false},
	} {
		if got := statExiting(tc.stat); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.stat, got, tc.want)
		}
	}
}

// A zombie (a child its parent has not reaped) reads as exiting, a sleeping process
// not.
func TestExitingZombie(t *testing.T) {
	// sh starts a child that ends at once, then becomes sleep, which never reaps it.
	cmd := exec.Command("sh", "-c", "sh -c 'exit 0' & exec sleep 30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var zombie int
	for deadline := time.Now().Add(30 * time.Second); zombie == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", cmd.Process.Pid, cmd.Process.Pid))
		var pid int
		if _, err := fmt.Sscan(string(b), &pid); err == nil && pid > 0 {
			if s, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); len(s) > 0 && statExiting(string(s)) {
				zombie = pid
			}
		}
	}
	if zombie == 0 {
		t.Fatal("no zombie child appeared in 30 s")
	}
	if !exiting(zombie) {
		t.Errorf("zombie %d not seen exiting", zombie)
	}
	if exiting(cmd.Process.Pid) {
		t.Errorf("sleeping process %d seen exiting", cmd.Process.Pid)
	}
	// and a child already reaped is gone: it ended
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Fatal(err)
	}
	if !exiting(done.Process.Pid) {
		t.Errorf("reaped process %d not seen ended", done.Process.Pid)
	}
}

// A server that is exiting when Stop comes (killed a moment before, not yet reaped)
// died during the run: Stop names its death instead of sending its own signal and
// calling the end a stop.
func TestStopSeesAServerAlreadyExiting(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p, err := Start(cmd, filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	p.ready.Store(true)
	old := exiting
	t.Cleanup(func() { exiting = old })
	// The window Stop must cover: the kill has been sent and the process is on its
	// way out, but its wait has not returned.
	exiting = func(pid int) bool {
		syscall.Kill(pid, syscall.SIGKILL)
		return true
	}
	err = p.Stop(syscall.SIGTERM, 5*time.Second)
	var died *exitstatus.DiedError
	if !errors.As(err, &died) || died.PID != cmd.Process.Pid || died.How != "killed by SIGKILL" {
		t.Fatalf("Stop: %v, want the death by SIGKILL of pid %d", err, cmd.Process.Pid)
	}
}
