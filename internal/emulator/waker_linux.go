package emulator

import (
	"container/heap"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// waker wakes queued requests at their completion times from one OS thread, so a deep
// queue parks goroutines instead of blocking an OS thread each in clock_nanosleep
// (every blocked thread holds a Go P until the runtime notices, which at queue depth 32
// on two CPUs starves the handlers that would issue the next requests: measured 32K
// instead of 21K random reads per second through a sata-ssd mount).
//
// The thread sleeps in a futex wait with a timeout (a precise, interruptible sleep): a
// request whose deadline comes before every queued one bumps the futex word and wakes
// it early.
type waker struct {
	mu  sync.Mutex
	q   wakeHeap
	seq atomic.Uint32 // futex word: bumped when the earliest deadline changes
}

type wakeItem struct {
	at time.Time
	ch chan struct{}
}

type wakeHeap []wakeItem

func (h wakeHeap) Len() int           { return len(h) }
func (h wakeHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h wakeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *wakeHeap) Push(x any)        { *h = append(*h, x.(wakeItem)) }
func (h *wakeHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

var (
	theWaker     *waker
	theWakerOnce sync.Once
)

const (
	futexWaitPrivate = 0 | 128
	futexWakePrivate = 1 | 128
)

// waitUntil parks the caller until t.
func waitUntil(t time.Time) {
	if time.Until(t) <= 0 {
		return
	}
	theWakerOnce.Do(func() {
		theWaker = &waker{}
		go theWaker.run()
	})
	ch := make(chan struct{})
	w := theWaker
	w.mu.Lock()
	heap.Push(&w.q, wakeItem{at: t, ch: ch})
	first := w.q[0].ch == ch
	w.mu.Unlock()
	if first {
		w.seq.Add(1)
		syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(&w.seq)), futexWakePrivate, 1, 0, 0, 0)
	}
	<-ch
}

func (w *waker) run() {
	runtime.LockOSThread()
	const prSetTimerslack = 29
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerslack, 1, 0)
	for {
		seq := w.seq.Load()
		w.mu.Lock()
		now := time.Now()
		for w.q.Len() > 0 && !w.q[0].at.After(now) {
			close(heap.Pop(&w.q).(wakeItem).ch)
		}
		next := time.Duration(-1)
		if w.q.Len() > 0 {
			next = w.q[0].at.Sub(now)
		}
		w.mu.Unlock()
		var tsp uintptr
		if next >= 0 {
			ts := syscall.NsecToTimespec(int64(next))
			tsp = uintptr(unsafe.Pointer(&ts))
		}
		// returns at the timeout, when woken, or at once if seq moved meanwhile
		syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(&w.seq)), futexWaitPrivate, uintptr(seq), tsp, 0, 0)
	}
}
