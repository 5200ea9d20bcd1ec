package emulator

import "fmt"

// DiedError is the emulator's server gone before it was asked to stop (killed,
// crashed): every request to its devices failed from then on, so it is the cause of
// whatever failed after, and a run's cause names it first.
type DiedError struct {
	PID int
	// How is how the process ended ("killed by SIGKILL").
	How string
}

func (e *DiedError) Error() string {
	return fmt.Sprintf("the emulator's server (pid %d) died during the run (%s): its devices failed every request from then on", e.PID, e.How)
}
