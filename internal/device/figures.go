package device

import (
	"container/heap"
	"fmt"
	"time"
)

// Figures are key numbers of a device computed from its model (not copied from its
// datasheet), so `device list` shows what the emulation will do.
type Figures struct {
	// RandRead8KQD1 is the mean latency of random 8 KiB reads, one at a time.
	RandRead8KQD1 time.Duration
	// RandRead4KQD1IOPS and RandRead4KQD32IOPS are random 4 KiB read rates at queue
	// depth 1 and 32 (closed loop: a new read as each one completes).
	RandRead4KQD1IOPS, RandRead4KQD32IOPS float64
	// SeqReadMBps is the rate of sequential 1 MiB reads at queue depth 1, in MB/s.
	SeqReadMBps float64
}

// Characterize runs short synthetic workloads on fresh models of spec. Offsets come
// from a fixed-seed generator, so the figures are the same on every run.
func (r *Registry) Characterize(spec string) (Figures, error) {
	var f Figures
	fresh := func() (Model, int64, error) {
		m, err := r.Build(spec)
		if err != nil {
			return nil, 0, err
		}
		capacity := capacityOf(m)
		if capacity <= 0 {
			return nil, 0, fmt.Errorf("device spec %q: model has no capacity", spec)
		}
		return m, capacity, nil
	}
	m, capacity, err := fresh()
	if err != nil {
		return f, err
	}
	lat, _ := closedLoop(m, capacity, 8<<10, 1, 200)
	f.RandRead8KQD1 = lat
	if m, _, err = fresh(); err != nil {
		return f, err
	}
	_, f.RandRead4KQD1IOPS = closedLoop(m, capacity, 4<<10, 1, 200)
	if m, _, err = fresh(); err != nil {
		return f, err
	}
	_, f.RandRead4KQD32IOPS = closedLoop(m, capacity, 4<<10, 32, 100)
	if m, _, err = fresh(); err != nil {
		return f, err
	}
	const chunk, n = 1 << 20, 64
	var t time.Duration
	for i := int64(0); i < n; i++ {
		t = m.Submit(t, Request{Op: OpRead, Offset: i * chunk, Size: chunk, File: 1})
	}
	if t > 0 {
		f.SeqReadMBps = float64(chunk*n) / t.Seconds() / 1e6
	}
	return f, nil
}

// closedLoop keeps depth random reads of size outstanding until depth*per have run and
// returns the mean latency and the rate.
func closedLoop(m Model, capacity, size int64, depth, per int) (time.Duration, float64) {
	rng := splitmix64(0x7469657262656e63) // "tierbenc"
	blocks := max(capacity/size, 1)
	next := func() Request {
		return Request{Op: OpRead, Offset: int64(rng.next()%uint64(blocks)) * size, Size: size, File: 1}
	}
	var q endHeap
	var total, last time.Duration
	issued := 0
	for range depth {
		heap.Push(&q, pendingBytes{end: m.Submit(0, next())})
		issued++
	}
	done := 0
	for q.Len() > 0 {
		p := heap.Pop(&q).(pendingBytes)
		done++
		last = max(last, p.end)
		if issued < depth*per {
			end := m.Submit(p.end, next())
			total += end - p.end
			heap.Push(&q, pendingBytes{end: end})
			issued++
		}
	}
	if done == 0 || last == 0 {
		return 0, 0
	}
	n := max(done-depth, 1)
	return total / time.Duration(n), float64(done) / last.Seconds()
}

// splitmix64 is a small fixed generator (Steele, Lea & Flood, OOPSLA 2014) so the
// synthetic offsets do not depend on math/rand's algorithm.
type splitmix64 uint64

func (s *splitmix64) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
