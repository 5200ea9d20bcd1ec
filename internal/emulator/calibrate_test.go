//go:build linux

package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCalibrateJSON runs a short calibration and checks the JSON has the documented
// fields: floor_us and probes of {probe, metric, model, measured, error_pct}.
func TestCalibrateJSON(t *testing.T) {
	needFUSE(t)
	opts := CalibrateOptions{Options: testOptions(t), Budget: 100 * time.Millisecond, Dir: t.TempDir()}
	cal, err := Calibrate(context.Background(), "sata-ssd", opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(cal)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if f, ok := got["floor_us"].(float64); !ok || f <= 0 {
		t.Fatalf("floor_us missing or not positive: %s", b)
	}
	ps, ok := got["probes"].([]any)
	if !ok || len(ps) < len(probes) {
		t.Fatalf("probes: want a list of at least %d, got %s", len(probes), b)
	}
	for _, p := range ps {
		m := p.(map[string]any)
		for _, k := range []string{"probe", "metric"} {
			if s, ok := m[k].(string); !ok || s == "" {
				t.Fatalf("probe field %q missing: %v", k, m)
			}
		}
		for _, k := range []string{"model", "measured", "error_pct", "host_best", "error_vs_host_best_pct", "rounds"} {
			if _, ok := m[k].(float64); !ok {
				t.Fatalf("probe field %q missing: %v", k, m)
			}
		}
		if m["model"].(float64) <= 0 || m["measured"].(float64) <= 0 || m["host_best"].(float64) <= 0 || m["rounds"].(float64) < 1 {
			t.Fatalf("probe without a model, measured or host's best value, or rounds: %v", m)
		}
	}
}

// TestReplayMatchesModel records a trace through a mount and replays it through a
// fresh model of the same spec: the totals must equal the served model's.
func TestReplayMatchesModel(t *testing.T) {
	needFUSE(t)
	dir := t.TempDir()
	d := Device{Name: "data", Spec: "sata-ssd", BackingDir: filepath.Join(dir, "b"), MountPoint: filepath.Join(dir, "m"),
		Trace: filepath.Join(dir, "data.trace")}
	opts := testOptions(t)
	opts.AllowTooFast = true
	e, err := Start(context.Background(), []Device{d}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	f, err := os.Create(filepath.Join(d.MountPoint, "t"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16<<10)
	for i := range 200 {
		if _, err := f.WriteAt(buf, int64(i*7919%512)*8192); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			f.Sync()
		}
	}
	for i := range 200 {
		f.ReadAt(buf[:8192], int64(i*104729%512)*8192)
	}
	f.Close()
	final, err := e.Stop()
	if err != nil {
		t.Fatal(err)
	}
	res, err := ReplayFile(context.Background(), d.Trace, "sata-ssd", ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := final[0].Model
	if res.Model != want {
		t.Fatalf("replay stats %+v\nserved model %+v", res.Model, want)
	}
	if res.Requests != final[0].Reads+final[0].Writes+final[0].Flushes {
		t.Fatalf("replayed %d requests, served %d", res.Requests, final[0].Reads+final[0].Writes+final[0].Flushes)
	}
	if res.TraceFormat != 2 || !res.Checked || res.Incomplete != "" {
		t.Fatalf("trace format %d, checked %v, incomplete %q: want a whole, checked format 2 trace", res.TraceFormat, res.Checked, res.Incomplete)
	}
	if res.Busy <= 0 || res.IOTime <= 0 {
		t.Fatalf("replay without busy or I/O time: %+v", res)
	}
	// Through a faster device the same trace costs less I/O time.
	fast, err := ReplayFile(context.Background(), d.Trace, "nvme", ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fast.IOTime >= res.IOTime {
		t.Fatalf("nvme I/O time %v not below sata-ssd's %v", fast.IOTime, res.IOTime)
	}
}

// TestNoFUSEMessage checks what a user reads where FUSE is missing.
func TestNoFUSEMessage(t *testing.T) {
	err := fuseUnavailable("/dev/fuse missing")
	if !errors.Is(err, ErrNoFUSE) {
		t.Fatal("not ErrNoFUSE")
	}
	want := "FUSE is not available here (/dev/fuse missing): install fuse3 / run with --device /dev/fuse in containers / use --tier NAME=DIR real directories"
	if err.Error() != want {
		t.Fatalf("got  %q\nwant %q", err, want)
	}
}
