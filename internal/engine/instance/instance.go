package instance

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"tierbench/internal/rundir"
)

// Instance is a managed server's files and process: what the PostgreSQL and MariaDB
// engines both keep about the instance they started.
type Instance struct {
	User    User
	DataDir string
	RunDir  string // socket, pid file and server log
	Proc    *Process
	// RemoveOnStop lists what this run created and Stop removes: while the instance
	// starts, everything it created (a failed start leaves nothing, kept or not);
	// once it runs (Started), nothing when it is kept.
	RemoveOnStop []string
	// Traversable are the directories the server user may be let through
	// (engine.Config.Traversable); Granted those it was let through (User.Reach).
	Traversable []string
	Granted     []string
	// Leftovers removes what a server that died without cleaning up left outside its
	// directories (PostgreSQL's shared memory after a SIGKILL), given the run
	// directory it ran in; nil when the engine leaves nothing there. Stop calls it once
	// the server is gone, and so does the removal of a dead tierbench's run
	// directories (RemoveDead).
	Leftovers func(runDir string)

	runLock *rundir.Lock
}

// MakeRunDir creates the instance's run directory (User.RunDir).
func (i *Instance) MakeRunDir(prefix string) error {
	dir, lock, err := i.User.RunDir(prefix, i.Leftovers)
	if err != nil {
		return err
	}
	i.RunDir, i.runLock = dir, lock
	return nil
}

// Reach lets the server user reach dir (User.Reach with Traversable), noting in
// Granted the directories it was let through.
func (i *Instance) Reach(dir string) error {
	granted, err := i.User.Reach(dir, i.Traversable)
	for _, g := range granted {
		if !slices.Contains(i.Granted, g) {
			i.Granted = append(i.Granted, g)
		}
	}
	return err
}

// MkdirOwned creates dir for the server user once it can reach dir's parent
// (User.MkdirOwned). A directory this call creates, or any when fresh (a new
// instance, so nothing in its place is worth keeping), goes on RemoveOnStop.
func (i *Instance) MkdirOwned(dir string, fresh bool) error {
	if err := i.Reach(filepath.Dir(dir)); err != nil {
		return err
	}
	created, err := i.User.MkdirOwned(dir)
	if created || (fresh && err == nil) {
		i.RemoveOnStop = append(i.RemoveOnStop, dir)
	}
	return err
}

// Started says the server runs: unless keep, Stop removes what this run created;
// with keep, the instance's files stay for the next run.
func (i *Instance) Started(keep bool) {
	if keep {
		i.RemoveOnStop = nil
	}
}

// RemovesData reports whether Stop removes the data directory, so the server need
// not shut down cleanly.
func (i *Instance) RemovesData() bool {
	return within(i.DataDir, i.RemoveOnStop)
}

// MkdirAll creates dir and its missing parents (0755) for the instance's files; the
// topmost directory it creates goes on RemoveOnStop, so that a failed start leaves
// nothing behind.
func (i *Instance) MkdirAll(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	top := ""
	for p := abs; ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil || p == filepath.Dir(p) {
			break
		}
		top = p
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return err
	}
	if top != "" {
		i.RemoveOnStop = append(i.RemoveOnStop, top)
	}
	return nil
}

// Stopping says how to stop a server: with Discard (and DiscardTimeout) when its
// data is about to be removed, with Clean (and CleanTimeout) when it is kept.
type Stopping struct {
	Discard, Clean               syscall.Signal
	DiscardTimeout, CleanTimeout time.Duration
}

// Stop stops the server as s says, then removes what the run created and the run
// directory. It returns the server's stop error (a *exitstatus.DiedError when the
// server had died, Process.Stop) with the first removal's; the removals are tried
// anyway.
func (i *Instance) Stop(s Stopping) error {
	var stopErr, rmErr error
	if i.Proc != nil {
		if i.RemovesData() {
			stopErr = i.Proc.Stop(s.Discard, s.DiscardTimeout)
		} else {
			stopErr = i.Proc.Stop(s.Clean, s.CleanTimeout)
		}
	}
	if i.Leftovers != nil && i.RunDir != "" {
		i.Leftovers(i.RunDir)
	}
	for _, dir := range append(i.RemoveOnStop, i.RunDir) {
		if dir == "" {
			continue
		}
		if err := os.RemoveAll(dir); err != nil && rmErr == nil {
			rmErr = err
		}
	}
	err := errors.Join(stopErr, rmErr, i.runLock.Release())
	i.RemoveOnStop, i.RunDir, i.runLock = nil, "", nil
	return err
}

// ServerPID is the server's process ID, 0 when it is not running.
func (i *Instance) ServerPID() int {
	if i.Proc == nil {
		return 0
	}
	return i.Proc.PID()
}
