package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// LockFile is the name of the lock file a Lock keeps in its directory.
const LockFile = "tierbench.lock"

// Holder is who holds a lock, as its lock file records it.
type Holder struct {
	PID int `json:"pid"`
	// Command is the holder's command line, passwords removed by the caller.
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
}

// BusyError is the refusal of a lock another process holds.
type BusyError struct {
	Dir string
	// Holder is zero when the holder had not yet recorded itself.
	Holder Holder
}

func (e *BusyError) Error() string {
	h := e.Holder
	if h.PID == 0 {
		return fmt.Sprintf("%s is in use by another tierbench: wait for it to finish, or choose another directory", e.Dir)
	}
	return fmt.Sprintf("%s is in use by another tierbench (pid %d, since %s: %s): wait for it to finish, or choose another directory",
		e.Dir, h.PID, h.Since.Local().Format("2006-01-02 15:04:05"), h.Command)
}

// Lock is an exclusive hold on a directory for the life of a command.
type Lock struct {
	dir, path string
	f         *os.File
}

// Acquire locks dir (which must exist) for the command line command, or returns a
// *BusyError naming the process that holds it. It never waits.
func Acquire(dir, command string) (*Lock, error) { return AcquireFile(dir, LockFile, command) }

// AcquireFile is Acquire with a lock file of another name in dir: a lock on one part
// of a directory that others share (a study's run, while other runs of the study
// run in the same directory on other machines).
func AcquireFile(dir, name, command string) (*Lock, error) {
	path := filepath.Join(dir, name)
	// A holder removes the file when it releases it: a file opened just before that
	// removal is locked in vain, so the lock counts only when the path still names the
	// file locked. The loop is bounded; each turn means another process took and
	// released the lock in between.
	for range 100 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, &BusyError{Dir: dir, Holder: readHolder(path)}
			}
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		if !sameFile(f, path) {
			f.Close()
			continue
		}
		h := Holder{PID: os.Getpid(), Command: command, Since: time.Now().UTC()}
		b, _ := json.Marshal(h)
		if err := f.Truncate(0); err == nil {
			_, err = f.WriteAt(append(b, '\n'), 0)
		}
		// A lock whose record could not be written (a full disk) still locks; the
		// refusal of a second command then names no holder.
		return &Lock{dir: dir, path: path, f: f}, nil
	}
	return nil, fmt.Errorf("lock %s: the lock file keeps changing hands", dir)
}

// sameFile reports whether path still names the open file f.
func sameFile(f *os.File, path string) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	pi, err := os.Stat(path)
	return err == nil && os.SameFile(fi, pi)
}

// readHolder reads a lock file's record; zero when it holds none (yet).
func readHolder(path string) Holder {
	var h Holder
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal([]byte(strings.TrimSpace(string(b))), &h)
	}
	return h
}

// Dir is the locked directory.
func (l *Lock) Dir() string { return l.dir }

// Release removes the lock file and drops the lock. Safe to call more than once.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	// Removed while still locked, so that no one locks the old file after us.
	err := os.Remove(l.path)
	if errors.Is(err, os.ErrNotExist) { // the directory went (a run directory removed)
		err = nil
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
