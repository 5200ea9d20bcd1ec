package device

import (
	"fmt"
	"math/bits"
	"sort"
	"time"
)

// Op is the kind of a request.
type Op int

const (
	// OpRead reads Size bytes at Offset.
	OpRead Op = iota
	// OpWrite writes Size bytes at Offset.
	OpWrite
	// OpFlush makes every write submitted before it durable (fsync, fdatasync, a FLUSH
	// CACHE command). Offset and Size are ignored; File selects the file whose dirty
	// pages a page cache writes back (0: all files).
	OpFlush
)

func (o Op) String() string {
	switch o {
	case OpRead:
		return "read"
	case OpWrite:
		return "write"
	case OpFlush:
		return "flush"
	}
	return fmt.Sprintf("op(%d)", int(o))
}

// Request is one I/O as the emulator sees it after the kernel: a byte range on the
// device (the emulator maps file offsets to device offsets), the file it belongs to and
// whether the file was opened with O_DIRECT.
type Request struct {
	Op     Op
	Offset int64  // byte offset on the device; offsets past the capacity wrap around
	Size   int64  // bytes; a negative size counts as 0
	File   uint64 // file identity (an inode number, say); 0 means "no file"
	Direct bool   // O_DIRECT: bypasses a host page cache
	// Unwritten is how many bytes at the end of a write lie past the file's end as it
	// was before the write: a page cache holds nothing to read for a page wholly
	// past it (the kernel gives such a page zeros instead of reading it).
	Unwritten int64
}

// Model is a device model on a virtual clock. Submit takes the time a request is
// submitted (time since the start of the run) and returns the time it completes. The
// model keeps its own state (head position, busy-until per server, cache contents), so
// the answer depends on every request submitted before.
//
// Submit times should be non-decreasing: the emulator serialises calls and submits in
// arrival order. An earlier time is accepted (the request simply finds the servers
// busy), but busy time is exact only for non-decreasing submit times. Models are not
// safe for concurrent use.
//
// Every model here also implements Powered and Sized; composites implement Composite.
type Model interface {
	// Name is the device spec the model was built from, such as "hdd-7200" or
	// "san(dram-ssd,link=8gfc)".
	Name() string
	// Submit returns the completion time of r submitted at time at.
	Submit(at time.Duration, r Request) time.Duration
	// Stats returns the counters so far.
	Stats() Stats
}

// Powered is a model that carries power figures.
type Powered interface {
	Power() Power
}

// Sized is a model that knows its capacity in bytes.
type Sized interface {
	Capacity() int64
}

// Composite is a model built around other models (the members of a RAID, the inner
// device of a SAN or cache). Energy walks it.
type Composite interface {
	Members() []Model
}

// Stats are a model's counters. Busy is the union of the intervals during which the
// device served at least one request (queueing inside the device included), which is
// what energy needs: at queue depth > 1 it is less than the sum of service times.
type Stats struct {
	Reads, Writes, Flushes int64
	ReadBytes, WriteBytes  int64
	Busy                   time.Duration
	// Hits and Misses count pages (page cache) or cache blocks (ssd-cache).
	Hits, Misses int64
	// Writebacks counts dirty pages or blocks written to the inner device.
	Writebacks int64
	// ReadaheadPages counts the pages a page cache read from the inner device ahead of
	// the reads that asked for them (Hits and Misses count only the asked-for pages).
	ReadaheadPages int64
}

// counters is embedded by every model to keep Stats.
type counters struct {
	st   Stats
	busy busyTracker
}

func (c *counters) count(r Request) {
	switch r.Op {
	case OpRead:
		c.st.Reads++
		c.st.ReadBytes += max(r.Size, 0)
	case OpWrite:
		c.st.Writes++
		c.st.WriteBytes += max(r.Size, 0)
	case OpFlush:
		c.st.Flushes++
	}
}

// Stats returns the counters with the busy time so far.
func (c *counters) Stats() Stats {
	s := c.st
	s.Busy = c.busy.total()
	return s
}

// busyTracker keeps the union of busy intervals. Intervals that end before the latest
// submit time can no longer grow (every later interval starts at or after its submit
// time), so they are folded into done; the rest stay in a short sorted list.
type busyTracker struct {
	done    time.Duration
	pending []interval // sorted by start, disjoint
}

type interval struct{ start, end time.Duration }

// advance folds intervals that end at or before now.
func (b *busyTracker) advance(now time.Duration) {
	i := 0
	for i < len(b.pending) && b.pending[i].end <= now {
		b.done += b.pending[i].end - b.pending[i].start
		i++
	}
	if i > 0 {
		b.pending = append(b.pending[:0], b.pending[i:]...)
	}
}

// add merges [start, end) into the union.
func (b *busyTracker) add(start, end time.Duration) {
	if end <= start {
		return
	}
	i := sort.Search(len(b.pending), func(i int) bool { return b.pending[i].end >= start })
	j := i
	for j < len(b.pending) && b.pending[j].start <= end {
		start = min(start, b.pending[j].start)
		end = max(end, b.pending[j].end)
		j++
	}
	merged := interval{start, end}
	b.pending = append(b.pending[:i], append([]interval{merged}, b.pending[j:]...)...)
}

func (b *busyTracker) total() time.Duration {
	t := b.done
	for _, iv := range b.pending {
		t += iv.end - iv.start
	}
	return t
}

// xfer is the time to move n bytes at rate bytes per second, in whole nanoseconds
// (truncated). Integer arithmetic keeps results identical on every platform.
func xfer(n, rate int64) time.Duration {
	if n <= 0 || rate <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(n), uint64(time.Second))
	if hi >= uint64(rate) {
		return time.Duration(1<<63 - 1)
	}
	q, _ := bits.Div64(hi, lo, uint64(rate))
	if q > 1<<63-1 {
		return time.Duration(1<<63 - 1)
	}
	return time.Duration(q)
}

// wrap maps an offset into [0, capacity): offsets past the end wrap around.
func wrap(off, capacity int64) int64 {
	if capacity <= 0 {
		return max(off, 0)
	}
	off %= capacity
	if off < 0 {
		off += capacity
	}
	return off
}

// latest returns the largest of the times.
func latest(ts ...time.Duration) time.Duration {
	var m time.Duration
	for i, t := range ts {
		if i == 0 || t > m {
			m = t
		}
	}
	return m
}

// Walk calls fn for m and every model inside it, depth first, with its depth (0 for m):
// for reports of each device's counters.
func Walk(m Model, fn func(depth int, m Model)) {
	var walk func(int, Model)
	walk = func(d int, m Model) {
		fn(d, m)
		if c, ok := m.(Composite); ok {
			for _, mm := range c.Members() {
				walk(d+1, mm)
			}
		}
	}
	walk(0, m)
}
