package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
)

// writeTestTrace records n requests (8 KiB reads 1 ms apart) and returns the file.
func writeTestTrace(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.trace")
	w, err := emulator.CreateTrace(path, emulator.TraceHeader{Device: "data", Spec: "hdd-7200"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		w.Add(time.Duration(i)*time.Millisecond, device.Request{Op: device.OpRead, Offset: int64(i) * 8192, Size: 8192, File: 1})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDeviceFlagErrors: every device command's bad flag fails at once with one line
// naming the flag (--budget -1s used to mount first and then say "probe
// randread-8k-qd1: no request completed").
func TestDeviceFlagErrors(t *testing.T) {
	trace := writeTestTrace(t, 10)
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.trace")
	if err := os.WriteFile(cut, b[:len(b)-40], 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"negative budget", []string{"device", "calibrate", "--profile", "hdd-7200", "--budget", "-1s"},
			"--budget -1s: give the longest run of each probe, from 10ms to 10m0s (default 1.2s)"},
		{"zero budget", []string{"device", "calibrate", "--profile", "hdd-7200", "--budget", "0s"}, "--budget 0s: give"},
		{"budget of hours", []string{"device", "calibrate", "--profile", "hdd-7200", "--budget", "5h"}, "--budget 5h0m0s: give"},
		{"malformed budget", []string{"device", "calibrate", "--profile", "hdd-7200", "--budget", "soon"}, `invalid argument "soon" for "--budget"`},
		{"unknown profile", []string{"device", "calibrate", "--profile", "hdd-9000"}, `--profile hdd-9000: unknown device profile "hdd-9000"`},
		{"empty profile", []string{"device", "calibrate", "--profile", ""}, "--profile is empty"},
		{"size out of range", []string{"device", "calibrate", "--profile", "pagecache(hdd-7200,size=1e12GiB)"},
			"--profile pagecache(hdd-7200,size=1e12GiB): device spec \"pagecache(hdd-7200,size=1e12GiB)\": field size_gib must be at most"},
		{"missing dir", []string{"device", "calibrate", "--profile", "hdd-7200", "--dir", filepath.Join(dir, "nope")},
			"--dir " + filepath.Join(dir, "nope") + ": no such directory"},
		{"missing profiles", []string{"device", "list", "--profiles", filepath.Join(dir, "nope")},
			"--profiles " + filepath.Join(dir, "nope") + ": no such file or directory"},
		{"missing trace", []string{"device", "replay", "--trace", filepath.Join(dir, "nope.trace"), "--profile", "nvme"},
			"--trace " + filepath.Join(dir, "nope.trace") + ": no such file"},
		{"trace is a directory", []string{"device", "replay", "--trace", dir, "--profile", "nvme"}, "--trace " + dir + " is a directory"},
		{"replay through an unknown profile", []string{"device", "replay", "--trace", trace, "--profile", "nvme9"}, `--profile nvme9: unknown device profile "nvme9"`},
		{"truncated trace", []string{"device", "replay", "--trace", cut, "--profile", "nvme"},
			"trace " + cut + ": record 10 (byte 385): the trace ends 28 bytes into this 34-byte record"},
		{"not a trace", []string{"device", "replay", "--trace", filepath.Join("device_test.go"), "--profile", "nvme"}, "not a tierbench trace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runCLI(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v\nwant one containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
		})
	}
	_, err = runCLI(t, "device", "replay", "--trace", cut, "--profile", "nvme")
	if err == nil || !strings.HasSuffix(err.Error(), "give --partial to replay the requests before that point") {
		t.Fatalf("truncated trace without --partial: %v", err)
	}
}

// TestDeviceReplayOutput replays a whole trace and a cut one with --partial.
func TestDeviceReplayOutput(t *testing.T) {
	trace := writeTestTrace(t, 10)
	out, err := runCLI(t, "device", "replay", "--trace", trace, "--profile", "nvme")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "requests  10 (reads 10, writes 0, flushes 0; 81920 / 0 bytes read / written)") || strings.Contains(out, "INCOMPLETE") {
		t.Fatalf("output:\n%s", out)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trace, b[:len(b)-40], 0o644); err != nil { // the end marker and 6 bytes of request 10
		t.Fatal(err)
	}
	out, err = runCLI(t, "device", "replay", "--trace", trace, "--profile", "nvme", "--partial")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "INCOMPLETE: record 10 (byte ") || !strings.Contains(out, "the figures below cover the 9 requests before that point") ||
		!strings.Contains(out, "requests  9 (reads 9,") {
		t.Fatalf("output:\n%s", out)
	}
}

// TestCalibrateInterrupted: Ctrl-C during a calibration prints the probes that ran
// and says how many of them did.
func TestCalibrateInterrupted(t *testing.T) {
	cmd := newRootCommand()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs([]string{"device", "calibrate", "--profile", "hdd-7200", "--emulator", "preload", "--budget", "300ms"})
	// seven probes of at least 300 ms each (a disk's first requests take the budget)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	err := cmd.ExecuteContext(ctx)
	if err == nil || !strings.Contains(err.Error(), "interrupted: ") || !strings.Contains(err.Error(), " of 7 probes ran; calibrate again") {
		t.Fatalf("err %v, want an interruption that counts the probes", err)
	}
	var n int
	if _, serr := fmt.Sscanf(err.Error(), "interrupted: %d of 7", &n); serr != nil || n >= 7 {
		t.Fatalf("err %v: want fewer than 7 probes done", err)
	}
	t.Logf("%d probes ran before the interruption", n)
	if n > 0 && (!strings.Contains(out.String(), "HOST BEST") || !strings.Contains(out.String(), "randread-8k-qd1")) {
		t.Errorf("%d probes ran but no table:\n%s", n, out.String())
	}
}

// TestCalibrateDefaultsToTheRunsPath: device calibrate measures, unless told
// otherwise, the path every run takes by default (a user calibrating nvme through
// FUSE saw +936% and took the emulator for broken).
func TestCalibrateDefaultsToTheRunsPath(t *testing.T) {
	root := newRootCommand()
	find := func(args ...string) string {
		cmd, _, err := root.Find(args)
		if err != nil {
			t.Fatal(err)
		}
		f := cmd.Flags().Lookup("emulator")
		if f == nil {
			t.Fatalf("%v has no --emulator", args)
		}
		return f.DefValue
	}
	run, cal := find("oltp", "run"), find("device", "calibrate")
	if cal != run {
		t.Errorf("device calibrate --emulator defaults to %q, runs to %q", cal, run)
	}
}
