package twin

import (
	"context"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// hostLock is a flock(2) on a file that the measurements of a shared host take
// exclusively and its heavy work shared, so that no two measurements overlap and no
// heavy work disturbs one (--lock). A nil hostLock takes nothing.
type hostLock struct{ path string }

// hold takes the lock (exclusive or shared) and returns its release; it waits as long
// as another holder keeps it, polling so that Ctrl-C (ctx) still ends the wait.
func (l *hostLock) hold(ctx context.Context, exclusive bool) (func(), error) {
	if l == nil || l.path == "" {
		return func() {}, nil
	}
	f, err := os.OpenFile(l.path, os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--lock %s: %w", l.path, err)
	}
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	for {
		err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing releases the lock
		}
		if err != unix.EWOULDBLOCK {
			f.Close()
			return nil, fmt.Errorf("--lock %s: %w", l.path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
