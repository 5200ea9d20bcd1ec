package twin

import (
	"context"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// hostLock is a flock(2) on a file that the measurements of a shared host take
// exclusively and its heavy work shared, so that no two measurements overlap and no
// heavy work disturbs one (--lock). A nil hostLock takes nothing.
type hostLock struct{ path string }

// hold takes the lock (exclusive or shared) and returns its release. It waits in
// flock(2) itself, in line with the other waiters (polling would lose every race to
// them on a busy host); Ctrl-C (ctx) ends the wait, and should the lock come after
// that, it is let go at once.
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
	got := make(chan error, 1)
	go func() {
		for {
			err := unix.Flock(int(f.Fd()), how)
			if err != unix.EINTR {
				got <- err
				return
			}
		}
	}()
	select {
	case err := <-got:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("--lock %s: %w", l.path, err)
		}
		return func() { f.Close() }, nil // closing releases the lock
	case <-ctx.Done():
		go func() {
			<-got
			f.Close()
		}()
		return nil, ctx.Err()
	}
}
