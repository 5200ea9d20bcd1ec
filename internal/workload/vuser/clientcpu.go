package vuser

import (
	"fmt"
	"io"
	"runtime"
	"syscall"
	"time"
)

// ClientCPUDefinition says what ClientCPU counts, for the definitions every result
// carries.
const ClientCPUDefinition = "CPU time of the tierbench process itself (user + system, all threads) over the measured window: seconds, cores (seconds per second of the window), machine_share (cores over the machine's CPUs) and microseconds per transaction counted in tps; with SQLite it includes the embedded engine, which runs in the process"

// ClientCPU is what the tierbench process spent over a measured window, so that a run
// shows whether the harness could be what limits it (docs/oltp.md, "Harness overhead"):
// on a machine it shares with the server, every core it uses is one the server lacks.
type ClientCPU struct {
	Seconds      float64 `json:"seconds"`
	Cores        float64 `json:"cores"`
	CPUs         int     `json:"cpus"`
	MachineShare float64 `json:"machine_share"`
	USPerTxn     float64 `json:"us_per_transaction"`
}

// newClientCPU computes the figures from the process's CPU time over a window of
// wall-clock length window, in which txns transactions were counted, on a machine
// with cpus CPUs. Nil when the window has no length.
func newClientCPU(cpu, window time.Duration, txns int64, cpus int) *ClientCPU {
	if window <= 0 || cpu < 0 || cpus < 1 {
		return nil
	}
	c := &ClientCPU{Seconds: round2(cpu.Seconds()), CPUs: cpus}
	cores := cpu.Seconds() / window.Seconds()
	c.Cores = round2(cores)
	c.MachineShare = round2(cores / float64(cpus))
	if txns > 0 {
		c.USPerTxn = round2(float64(cpu.Microseconds()) / float64(txns))
	}
	return c
}

// processCPU is the CPU time the process has used so far, user and system, all
// threads (getrusage RUSAGE_SELF); tests replace it.
var processCPU = func() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// numCPU is the machine's CPU count for MachineShare; tests replace it.
var numCPU = runtime.NumCPU

// NoteShare is the share of the machine's CPUs above which WriteClientCPULine adds a
// note that a server on the same machine competes with tierbench for them.
const NoteShare = 0.2

// WriteClientCPULine prints c for people; embedded says the engine runs inside the
// process (its work is then in the figure, and no server competes for the CPUs).
func WriteClientCPULine(w io.Writer, c *ClientCPU, embedded bool) {
	if c == nil {
		return
	}
	who := "tierbench's own CPU"
	if embedded {
		who = "process CPU (tierbench and the embedded engine)"
	}
	fmt.Fprintf(w, "%s: %.1f µs a transaction, %.2f cores (%.0f%% of %d CPUs)\n", who, c.USPerTxn, c.Cores, c.MachineShare*100, c.CPUs)
	if !embedded && c.MachineShare >= NoteShare {
		fmt.Fprintf(w, "note: if the server runs on this machine, the %.0f%% tierbench used is CPU it did not get (docs/oltp.md: Harness overhead)\n", c.MachineShare*100)
	}
}
