package device

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// pageLog is a PageWatcher that keeps what it was told.
type pageLog struct {
	held   map[int64]time.Duration // page -> ready
	events []string
}

func newPageLog() *pageLog { return &pageLog{held: map[int64]time.Duration{}} }

func (l *pageLog) In(p int64, ready time.Duration) {
	l.held[p] = ready
	l.events = append(l.events, fmt.Sprintf("in %d %v", p, ready))
}

func (l *pageLog) Out(p int64) {
	delete(l.held, p)
	l.events = append(l.events, fmt.Sprintf("out %d", p))
}

func TestPageWatcher(t *testing.T) {
	r := testRegistry(t)
	t.Run("a miss comes in when its read completes, a hit tells nothing", func(t *testing.T) {
		m := build(t, r, pcSpec).(*PageCache)
		w := newPageLog()
		m.Watch(w)
		m.Submit(0, rd(0, 4096)) // the device's 4K read: 80 us
		m.Submit(100*us, rd(0, 4096))
		if len(w.events) != 1 || w.held[0] != 80*us {
			t.Errorf("events %v, want page 0 in at 80us only", w.events)
		}
	})
	t.Run("eviction and a direct write send pages out", func(t *testing.T) {
		m := build(t, r, pcSpec).(*PageCache)
		w := newPageLog()
		m.Watch(w)
		for p := int64(0); p < 5; p++ { // 4 pages fit: page 0 goes when page 4 comes
			m.Submit(time.Duration(p)*ms, rd(p*4096, 4096))
		}
		if _, ok := w.held[0]; ok || len(w.held) != 4 {
			t.Errorf("held %v, want pages 1-4", w.held)
		}
		m.Submit(10*ms, Request{Op: OpWrite, Offset: 4096, Size: 4096, Direct: true, File: 1})
		if _, ok := w.held[1]; ok {
			t.Errorf("page 1 still held after a direct write over it: %v", w.events)
		}
	})
	t.Run("a whole-page write is in when the copy starts", func(t *testing.T) {
		m := build(t, r, pcSpec).(*PageCache)
		w := newPageLog()
		m.Watch(w)
		m.Submit(5*us, wr(0, 4096))
		if got, ok := w.held[0]; !ok || got != 5*us {
			t.Errorf("page 0: %v %v, want in at 5us (no device read)", got, ok)
		}
	})
	t.Run("read-ahead pages come in when their read is delivered", func(t *testing.T) {
		// 16 pages of cache, windows up to 8 pages: a read continuing the file's last
		// one starts a window whose pages after the request are read ahead.
		m := build(t, r, "pagecache(tssd,size=64KiB,copy=4.096GB/s,readahead=32KiB)").(*PageCache)
		w := newPageLog()
		m.Watch(w)
		m.Submit(0, rd(0, 4096))
		m.Submit(ms, rd(4096, 4096)) // sequential: a window from page 1
		if len(w.held) < 3 {
			t.Fatalf("held %v: the second read should have read ahead", w.held)
		}
		for p, ready := range w.held {
			if p >= 2 && ready <= ms {
				t.Errorf("page %d read ahead at 1ms is ready at %v, before the device could deliver it", p, ready)
			}
			if !m.Holds(p) {
				t.Errorf("page %d told in but not held", p)
			}
		}
	})
	t.Run("what it is told is what the cache holds", func(t *testing.T) {
		for _, spec := range []string{pcSpec, "pagecache(tssd,size=32KiB,copy=4.096GB/s,readahead=16KiB)"} {
			m := build(t, r, spec).(*PageCache)
			w := newPageLog()
			m.Watch(w)
			rng := rand.New(rand.NewPCG(1, 2))
			at := time.Duration(0)
			for i := range 2000 {
				at += time.Duration(rng.IntN(200)) * us
				off := int64(rng.IntN(24)) * 4096
				size := int64(1+rng.IntN(3)) * 4096
				switch rng.IntN(5) {
				case 0:
					m.Submit(at, wr(off, size))
				case 1:
					m.Submit(at, Request{Op: OpWrite, Offset: off, Size: size, Direct: true, File: 1})
				case 2:
					m.Submit(at, fl(1))
				default:
					m.Submit(at, rd(off, size))
				}
				for p := int64(0); p < 32; p++ {
					if _, told := w.held[p]; told != m.Holds(p) {
						t.Fatalf("%s, step %d: page %d held %v, watcher told %v", spec, i, p, m.Holds(p), told)
					}
				}
			}
		}
	})
}
