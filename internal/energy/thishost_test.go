package energy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/procfs"
)

// busy is the host's CPU utilisation between two /proc/stat readings, steal left out
// (what the monitor's host source gives the lifecycle).
func busy(a, b procfs.CPUStat) float64 {
	total := func(c procfs.CPUStat) float64 {
		return c.User + c.Nice + c.System + c.Idle + c.Iowait + c.IRQ + c.SoftIRQ + c.Steal
	}
	idle := (b.Idle - a.Idle) + (b.Iowait - a.Iowait) + (b.Steal - a.Steal)
	if d := total(b) - total(a); d > 0 {
		return 1 - idle/d
	}
	return 0
}

// TestThisHost records a second of this machine with its real /proc and /sys while
// a goroutine keeps one CPU busy: whatever the host has (RAPL, or the model, or
// neither for a CPU not in the table), New does not fail and the result says what
// it used. go test -v prints the summary.
func TestThisHost(t *testing.T) {
	rec, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	pfs, err := procfs.NewDefaultFS()
	if err != nil {
		t.Fatal(err)
	}
	stat := func() procfs.CPUStat {
		st, err := pfs.Stat()
		if err != nil {
			t.Fatal(err)
		}
		return st.CPUTotal
	}
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	prev := stat()
	rec.Sample(time.Now(), 0)
	for range 4 {
		time.Sleep(250 * time.Millisecond)
		cur := stat()
		rec.Sample(time.Now(), busy(prev, cur))
		prev = cur
	}
	close(stop)
	sec, err := rec.Finish(Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	WriteSummary(&out, sec, "run")
	t.Log(out.String())
	run := sec.Window("run")
	if run == nil || run.Seconds <= 0 {
		t.Fatalf("no run window: %+v", sec.Windows)
	}
	_, statErr := os.Stat("/sys/class/powercap")
	if errors.Is(statErr, fs.ErrNotExist) && !strings.Contains(out.String(), "not available on this host: RAPL") {
		t.Error("no powercap on this host, and the summary does not say so")
	}
	b, err := json.Marshal(sec)
	if err != nil {
		t.Fatal(err)
	}
	var back Section
	if err := json.Unmarshal(b, &back); err != nil || len(back.Windows) != 1 || back.Windows[0].Total.Joules != run.Total.Joules {
		t.Errorf("the section does not survive JSON: %v", err)
	}
}
