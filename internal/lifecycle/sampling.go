package lifecycle

import (
	"context"
	"math"
	"time"

	"github.com/prometheus/procfs"

	"tierbench/internal/result"
)

// Monitor samples the host, the engine and the devices during a run. The lifecycle
// starts it once the engine is open and the workload about to begin, passes it the
// workload's window marks, stops it when the workload ends (before the engine stops),
// and has it attach its section to the result. Until package monitor implements it,
// runs have none (Config.Monitor nil).
type Monitor interface {
	// Start begins sampling run. sample, when the monitor calls it at each of its
	// samples with the host's CPU utilisation (0 to 1, steal left out) over the
	// interval ending then, feeds the energy section (energy.Recorder.Sample).
	Start(ctx context.Context, run *Run, sample func(at time.Time, cpuBusy float64)) error
	// Mark notes that the measured window label starts (start) or ends at at.
	Mark(label string, start bool, at time.Time)
	// Stop takes the last sample (calling sample) and stops.
	Stop(at time.Time) error
	// Attach puts the monitor's section into s.
	Attach(s *result.Sections)
}

// cpuTimes are the host's CPU seconds so far: busy ones (steal left out, as the
// energy model wants: a hypervisor's other guests are not this run's) and all.
type cpuTimes struct {
	busy, total float64
	ok          bool
}

// readCPUTimes reads /proc/stat; not ok where it cannot be read.
func readCPUTimes() cpuTimes {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return cpuTimes{}
	}
	st, err := fs.Stat()
	if err != nil {
		return cpuTimes{}
	}
	c := st.CPUTotal
	busy := c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ
	return cpuTimes{busy: busy, total: busy + c.Idle + c.Iowait + c.Steal, ok: true}
}

// utilisation is the host's CPU utilisation from since to t (0 to 1), NaN when
// unknown: what the energy recorder's CPU model takes for the run without a monitor.
func (t cpuTimes) utilisation(since cpuTimes) float64 {
	if !t.ok || !since.ok || t.total <= since.total {
		return math.NaN()
	}
	return math.Min(1, math.Max(0, (t.busy-since.busy)/(t.total-since.total)))
}
