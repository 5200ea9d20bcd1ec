package vuser

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestNewClientCPU(t *testing.T) {
	// 2 s of CPU over a 4 s window with 1000 transactions on 2 CPUs: half a core, a
	// quarter of the machine, 2000 µs a transaction.
	got := newClientCPU(2*time.Second, 4*time.Second, 1000, 2)
	want := ClientCPU{Seconds: 2, Cores: 0.5, CPUs: 2, MachineShare: 0.25, USPerTxn: 2000}
	if got == nil || *got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// 30 ms over 1.5 s with 7 transactions on 8 CPUs: 0.02 cores, 0.0025 of the
	// machine (0 at two decimals), 4285.71 µs a transaction.
	got = newClientCPU(30*time.Millisecond, 1500*time.Millisecond, 7, 8)
	want = ClientCPU{Seconds: 0.03, Cores: 0.02, CPUs: 8, MachineShare: 0, USPerTxn: 4285.71}
	if got == nil || *got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if c := newClientCPU(time.Second, time.Second, 0, 2); c == nil || c.USPerTxn != 0 {
		t.Errorf("no transactions: %+v, want the CPU figures and 0 µs a transaction", c)
	}
	for _, c := range []*ClientCPU{newClientCPU(time.Second, 0, 10, 2), newClientCPU(-time.Second, time.Second, 10, 2), newClientCPU(time.Second, time.Second, 10, 0)} {
		if c != nil {
			t.Errorf("an empty window, negative CPU or no CPUs gave %+v, want nil", c)
		}
	}
}

// fakeCPU makes processCPU return the next of its values at each call (the last one
// from then on) and numCPU report cpus.
func fakeCPU(t *testing.T, cpus int, values ...time.Duration) *int {
	t.Helper()
	calls := 0
	oldCPU, oldNum := processCPU, numCPU
	processCPU = func() (time.Duration, error) {
		v := values[min(calls, len(values)-1)]
		calls++
		if v < 0 {
			return 0, errors.New("getrusage: no")
		}
		return v, nil
	}
	numCPU = func() int { return cpus }
	t.Cleanup(func() { processCPU, numCPU = oldCPU, oldNum })
	return &calls
}

// TestRunClientCPU: the runner reads the process's CPU time when the window begins
// and when it ends, and reports the difference over the window's length and its
// transactions.
func TestRunClientCPU(t *testing.T) {
	calls := fakeCPU(t, 4, 1*time.Second, 1500*time.Millisecond)
	f := &fakeWorkload{delay: 5 * time.Millisecond}
	sum, err := Run(context.Background(), f, Config{Users: 2, Ramp: 200 * time.Millisecond, Duration: time.Second, Interval: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if *calls != 2 {
		t.Errorf("%d readings of the process's CPU, want 2 (window start and end)", *calls)
	}
	c := sum.ClientCPU
	if c == nil {
		t.Fatal("no client CPU")
	}
	window := sum.End.Sub(sum.MeasureStart).Seconds()
	n := sum.Measured.Count("")
	if c.Seconds != 0.5 || c.CPUs != 4 || math.Abs(c.Cores-0.5/window) > 0.01 ||
		math.Abs(c.MachineShare-c.Cores/4) > 0.01 || math.Abs(c.USPerTxn-500000/float64(n)) > 0.01 {
		t.Errorf("client CPU %+v; want 0.5 s over a %.3f s window with %d transactions on 4 CPUs", c, window, n)
	}
	// The level report carries it.
	if l := NewLevelReport(sum, f.Ops()); l.ClientCPU != c {
		t.Errorf("level report client CPU %+v, want %+v", l.ClientCPU, c)
	}
}

func TestRunClientCPUUnreadable(t *testing.T) {
	fakeCPU(t, 2, -1)
	f := &fakeWorkload{delay: 5 * time.Millisecond}
	sum, err := Run(context.Background(), f, Config{Users: 1, Duration: 300 * time.Millisecond, Interval: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if sum.ClientCPU != nil {
		t.Errorf("client CPU %+v from a failed reading, want none", sum.ClientCPU)
	}
}

// TestProcessCPU: the real reading grows while the process works.
func TestProcessCPU(t *testing.T) {
	t0, err := processCPU()
	if err != nil {
		t.Fatal(err)
	}
	x := 1.0
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		for i := 0; i < 100000; i++ {
			x = math.Sqrt(x + float64(i))
		}
		if t1, _ := processCPU(); t1-t0 >= 20*time.Millisecond {
			return
		}
	}
	t.Errorf("process CPU time did not grow by 20 ms in 5 s of computing (x=%v)", x)
}

func TestWriteClientCPULine(t *testing.T) {
	c := &ClientCPU{Seconds: 9.6, Cores: 0.64, CPUs: 2, MachineShare: 0.32, USPerTxn: 16.03}
	var b bytes.Buffer
	WriteClientCPULine(&b, c, false)
	want := "tierbench's own CPU: 16.0 µs a transaction, 0.64 cores (32% of 2 CPUs)\n" +
		"note: if the server runs on this machine, the 32% tierbench used is CPU it did not get (docs/oltp.md: Harness overhead)\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	WriteClientCPULine(&b, c, true)
	if !strings.HasPrefix(b.String(), "process CPU (tierbench and the embedded engine): 16.0 µs") || strings.Contains(b.String(), "note:") {
		t.Errorf("embedded engine:\n%s", b.String())
	}
	b.Reset()
	WriteClientCPULine(&b, &ClientCPU{Cores: 0.1, CPUs: 2, MachineShare: 0.05, USPerTxn: 3}, false)
	if strings.Contains(b.String(), "note:") {
		t.Errorf("a 5%% share got the note:\n%s", b.String())
	}
	b.Reset()
	WriteClientCPULine(&b, nil, false)
	if b.Len() != 0 {
		t.Errorf("nil printed %q", b.String())
	}
}
