package lifecycle

import (
	"math"

	"github.com/prometheus/procfs"
)

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
