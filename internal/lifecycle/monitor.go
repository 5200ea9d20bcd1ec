package lifecycle

import (
	"context"
	"time"

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
