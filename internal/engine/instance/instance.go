package instance

import (
	"os"
	"syscall"
	"time"
)

// Instance is a managed server's files and process: what the PostgreSQL and MariaDB
// engines both keep about the instance they started.
type Instance struct {
	User    User
	DataDir string
	RunDir  string // socket, pid file and server log
	Proc    *Process
	// RemoveOnStop lists what this run created and Stop removes (empty when the
	// instance is kept).
	RemoveOnStop []string
}

// RemovesData reports whether Stop removes the data directory, so the server need
// not shut down cleanly.
func (i *Instance) RemovesData() bool {
	for _, dir := range i.RemoveOnStop {
		if dir == i.DataDir {
			return true
		}
	}
	return false
}

// Stopping says how to stop a server: with Discard (and DiscardTimeout) when its
// data is about to be removed, with Clean (and CleanTimeout) when it is kept.
type Stopping struct {
	Discard, Clean               syscall.Signal
	DiscardTimeout, CleanTimeout time.Duration
}

// Stop stops the server as s says, then removes what the run created and the run
// directory. The first error is returned; the removals are tried anyway.
func (i *Instance) Stop(s Stopping) error {
	var err error
	if i.Proc != nil {
		if i.RemovesData() {
			err = i.Proc.Stop(s.Discard, s.DiscardTimeout)
		} else {
			err = i.Proc.Stop(s.Clean, s.CleanTimeout)
		}
	}
	for _, dir := range append(i.RemoveOnStop, i.RunDir) {
		if dir == "" {
			continue
		}
		if rmErr := os.RemoveAll(dir); rmErr != nil && err == nil {
			err = rmErr
		}
	}
	i.RemoveOnStop, i.RunDir = nil, ""
	return err
}

// ServerPID is the server's process ID, 0 when it is not running.
func (i *Instance) ServerPID() int {
	if i.Proc == nil {
		return 0
	}
	return i.Proc.PID()
}
