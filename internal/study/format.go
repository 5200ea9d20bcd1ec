package study

import (
	"fmt"

	"tierbench/internal/host"
)

// runFormat is the version of cell.json's layout; a cell.json without one is of
// format 1.
const runFormat = 1

// runExtra are the members of cell.json that say where and how the run ran, for a
// study spread over machines (docs/cluster.md).
type runExtra struct {
	Format int `json:"format,omitempty"`
	// Task is the run's index among the study's tasks (`study tasks`).
	Task int `json:"task"`
	// Attempt counts the attempts at the run, this one included: the earlier ones
	// are in earlier/N.
	Attempt int `json:"attempt,omitempty"`
	// Transient says the run failed for a reason of the moment (killed from outside
	// the study, its command could not start): `study run --task` runs it again
	// without --retry-failed, and exits ExitRetry.
	Transient bool `json:"transient,omitempty"`
	// Host is the machine the run ran on.
	Host *host.Info `json:"host,omitempty"`
}

// FormatError is a study's file written by a tierbench whose layout this one does
// not read: a report would misread it, so nothing is read from its directory.
type FormatError struct {
	Path        string
	Found, Want int
	// By is the build that wrote it, when the file says.
	By host.Build
}

func (e *FormatError) Error() string {
	by := "another tierbench"
	if e.By.Version != "" {
		by = "tierbench " + e.By.String()
	}
	return fmt.Sprintf("%s was written by %s in format %d, and this tierbench (%s) reads format %d: report it with the tierbench that wrote it, or run its study again with this one; nothing was read or written",
		e.Path, by, e.Found, host.BuildInfo(), e.Want)
}

// buildOf is the build a host record names; zero without a record.
func buildOf(h *host.Info) host.Build {
	if h == nil {
		return host.Build{}
	}
	return h.Tierbench
}
