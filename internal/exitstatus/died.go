package exitstatus

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// DiedError is a process a run depends on (the emulator's server, a managed
// database server) gone before it was asked to stop: killed, crashed. What failed
// after it failed because it did, so a run's cause names it first (CauseFirst).
type DiedError struct {
	// Who names the process: "the emulator's server", "the database server postgres".
	Who string
	PID int
	// How is how it ended, as Text words it: "killed by SIGKILL".
	How string
	// Then is what followed from it: "its devices failed every request from then on".
	Then string
	// At is when it was seen to end; of two deaths, the earlier is the cause.
	At time.Time
}

func (e *DiedError) Error() string {
	return fmt.Sprintf("%s (pid %d) died during the run (%s): %s", e.Who, e.PID, e.How, e.Then)
}

// Split takes the deaths out of err: each part of err (the errors errors.Join joined,
// at any depth) that is or wraps a *DiedError gives that error, the earliest first;
// the others are joined in their order as rest (nil when there are none).
func Split(err error) (died []*DiedError, rest error) {
	var others []error
	var walk func(error)
	walk = func(err error) {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		var d *DiedError
		switch {
		case err == nil:
		case errors.As(err, &d):
			if !slices.Contains(died, d) {
				died = append(died, d)
			}
		default:
			others = append(others, err)
		}
	}
	walk(err)
	slices.SortStableFunc(died, func(a, b *DiedError) int { return a.At.Compare(b.At) })
	return died, errors.Join(others...)
}

// CauseFirst is err with the deaths it holds first, the earliest first, then the rest
// in their order (Split); err itself when it holds none.
func CauseFirst(err error) error {
	died, rest := Split(err)
	if len(died) == 0 {
		return err
	}
	out := make([]error, 0, len(died)+1)
	for _, d := range died {
		out = append(out, d)
	}
	return errors.Join(append(out, rest)...)
}
