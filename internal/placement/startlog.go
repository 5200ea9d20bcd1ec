package placement

import (
	"bytes"
	"io"
	"sync"
)

// startLog holds the emulator server's stderr until the mounts are up. A server that
// fails to mount writes its reason there and Start returns the same reason as an
// error: printing both would say it twice. Once mounted, the server's warnings pass
// straight through.
type startLog struct {
	mu      sync.Mutex
	w       io.Writer
	held    bytes.Buffer
	through bool
}

func (l *startLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.through {
		return l.w.Write(p)
	}
	return l.held.Write(p)
}

// forget drops what was held: the reason of a start that is retried another way,
// which the storage section's fallback records.
func (l *startLog) forget() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held.Reset()
}

// release passes what was held on (keep) or drops it, and lets later writes through.
func (l *startLog) release(keep bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if keep {
		l.w.Write(l.held.Bytes())
	}
	l.held.Reset()
	l.through = true
}
