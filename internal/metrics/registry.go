package metrics

import (
	"sort"
	"sync"
	"time"
)

// Counts are what a worker counts per operation besides latencies.
type Counts struct {
	// Errors are operations that failed (after any retries).
	Errors int64 `json:"errors"`
	// Rollbacks are operations that ended in a rollback the workload asked for (TPC-C's
	// 1% of New-Orders with an unused item); they are also in the histogram's count.
	Rollbacks int64 `json:"rollbacks"`
	// Retries are attempts repeated after a deadlock or serialization failure.
	Retries int64 `json:"retries"`
	// Queries are the statements the operations sent, counting BEGIN and COMMIT.
	Queries int64 `json:"queries"`
	// WaitNs are the nanoseconds the operations waited for each of the workload's
	// named waits (Registry.SetWaits: an application's connection pool, its critical
	// sections), in the registry's order; reports give them by name (OpReport.Waits).
	WaitNs []int64 `json:"-"`
}

func (c *Counts) add(o Counts) {
	c.Errors += o.Errors
	c.Rollbacks += o.Rollbacks
	c.Retries += o.Retries
	c.Queries += o.Queries
	if len(o.WaitNs) > len(c.WaitNs) {
		c.WaitNs = append(c.WaitNs, make([]int64, len(o.WaitNs)-len(c.WaitNs))...)
	}
	for i, w := range o.WaitNs {
		c.WaitNs[i] += w
	}
}

// OpStats is one operation's histogram and counts.
type OpStats struct {
	Hist *Histogram
	Counts
	// FirstError is the message of the earliest failure among those counted in Errors
	// (at FirstErrorAt); empty when Errors is 0. It travels with the counts, so a
	// window never names an error it does not count.
	FirstError   string
	FirstErrorAt time.Time
}

func newOpStats() *OpStats { return &OpStats{Hist: NewHistogram()} }

func (s *OpStats) merge(o *OpStats) {
	s.Hist.Merge(o.Hist)
	s.Counts.add(o.Counts)
	if o.FirstError != "" && (s.FirstError == "" || o.FirstErrorAt.Before(s.FirstErrorAt)) {
		s.FirstError, s.FirstErrorAt = o.FirstError, o.FirstErrorAt
	}
}

func (s *OpStats) reset() {
	s.Hist.Reset()
	clear(s.Counts.WaitNs) // its room is kept: a record then allocates nothing
	s.Counts = Counts{WaitNs: s.Counts.WaitNs}
	s.FirstError, s.FirstErrorAt = "", time.Time{}
}

// Registry holds every worker's Handle and the merged views. Workers record into
// their own Handle; one goroutine calls Tick.
type Registry struct {
	ops []string
	// waits names Counts.WaitNs's entries (SetWaits).
	waits []string

	mu      sync.Mutex
	handles []*Handle

	cumulative map[string]*OpStats
	interval   map[string]*OpStats
	since      time.Time // start of the cumulative window
	lastTick   time.Time
}

// NewRegistry returns a registry for the named operations, measuring from start.
func NewRegistry(ops []string, start time.Time) *Registry {
	r := &Registry{ops: append([]string(nil), ops...), since: start, lastTick: start,
		cumulative: map[string]*OpStats{}, interval: map[string]*OpStats{}}
	for _, op := range ops {
		r.cumulative[op] = newOpStats()
		r.interval[op] = newOpStats()
	}
	return r
}

// Ops are the operation names in the order given to NewRegistry.
func (r *Registry) Ops() []string { return r.ops }

// SetWaits names what operations may wait for beside the system under test (an
// application's connection pool, its critical sections), in the order of
// Counts.WaitNs; snapshots carry the names to their reports.
func (r *Registry) SetWaits(names []string) { r.waits = append([]string(nil), names...) }

// Handle is one worker's recorder.
type Handle struct {
	mu  sync.Mutex
	ops map[string]*OpStats
}

// NewHandle gives a worker its own recorder.
func (r *Registry) NewHandle() *Handle {
	h := &Handle{ops: map[string]*OpStats{}}
	for _, op := range r.ops {
		h.ops[op] = newOpStats()
	}
	r.mu.Lock()
	r.handles = append(r.handles, h)
	r.mu.Unlock()
	return h
}

// Record adds one finished operation: its latency (also for a requested rollback) and
// its counts. A failed operation (c.Errors > 0) adds no latency. Unknown operations
// are ignored.
func (h *Handle) Record(op string, latency time.Duration, c Counts) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.ops[op]
	if !ok {
		return
	}
	if c.Errors == 0 {
		s.Hist.Record(latency)
	}
	s.Counts.add(c)
}

// Op is a Handle's recorder of one operation, found once: for a worker whose
// operations take microseconds, finding the operation by name and deferring the
// unlock on every record was half a percent of the file workload's CPU on a
// RAM-backed file system (docs/postmark.md, "Against Debian's postmark").
type Op struct {
	h *Handle
	s *OpStats
}

// Op is h's recorder of the operation op; ok is false for an operation the registry
// does not know.
func (h *Handle) Op(op string) (o Op, ok bool) {
	h.mu.Lock()
	s, ok := h.ops[op]
	h.mu.Unlock()
	return Op{h: h, s: s}, ok
}

// Record adds one completed operation's latency: Handle.Record with no counts.
func (o Op) Record(latency time.Duration) {
	o.h.mu.Lock()
	o.s.Hist.Record(latency)
	o.h.mu.Unlock()
}

// RecordError adds one failed operation that ended at at with the message msg: its
// counts (Errors at least 1) and, if it is the handle's first failure of op since the
// last tick, its message. Unknown operations are ignored.
func (h *Handle) RecordError(op string, at time.Time, msg string, c Counts) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.ops[op]
	if !ok {
		return
	}
	c.Errors = max(c.Errors, 1)
	s.Counts.add(c)
	if s.FirstError == "" {
		s.FirstError, s.FirstErrorAt = msg, at
	}
}

// Snapshot is the merged state of all workers over a window.
type Snapshot struct {
	// Start and End bound the window; Elapsed is End minus the start of the run.
	Start, End time.Time
	Elapsed    time.Duration
	Ops        map[string]*OpStats
	// Order lists Ops' names in the registry's order.
	Order []string
	// Waits names the entries of the operations' Counts.WaitNs (Registry.SetWaits).
	Waits []string
}

// Duration is the window's length.
func (s *Snapshot) Duration() time.Duration { return s.End.Sub(s.Start) }

// Count is the number of completed operations (committed or requested rollback) of op,
// or of all operations when op is "".
func (s *Snapshot) Count(op string) int64 {
	var n int64
	for name, st := range s.Ops {
		if op == "" || op == name {
			n += st.Hist.Count()
		}
	}
	return n
}

// Total sums the counts of all operations.
func (s *Snapshot) Total() Counts {
	var c Counts
	for _, st := range s.Ops {
		c.add(st.Counts)
	}
	return c
}

// Combined merges every operation's histogram into one.
func (s *Snapshot) Combined() *Histogram {
	h := NewHistogram()
	for _, st := range s.Ops {
		h.Merge(st.Hist)
	}
	return h
}

// Rate is n per second of the window.
func (s *Snapshot) Rate(n int64) float64 {
	d := s.Duration().Seconds()
	if d <= 0 {
		return 0
	}
	return float64(n) / d
}

// Tick merges every handle's records since the last tick into a new interval snapshot,
// adds them to the cumulative view, and returns both. runStart is what Elapsed counts
// from. The returned snapshots are copies the caller may keep.
func (r *Registry) Tick(now, runStart time.Time) (interval, cumulative *Snapshot) {
	r.mu.Lock()
	handles := append([]*Handle(nil), r.handles...)
	r.mu.Unlock()
	for _, st := range r.interval {
		st.reset()
	}
	for _, h := range handles {
		h.mu.Lock()
		for op, st := range h.ops {
			r.interval[op].merge(st)
			st.reset()
		}
		h.mu.Unlock()
	}
	for op, st := range r.interval {
		r.cumulative[op].merge(st)
	}
	interval = r.copy(r.interval, r.lastTick, now, runStart)
	cumulative = r.copy(r.cumulative, r.since, now, runStart)
	r.lastTick = now
	return interval, cumulative
}

// ResetCumulative starts the cumulative window at now, discarding what was merged so
// far (a ramp-up). Call Tick first so that nothing recorded before now stays in the
// handles.
func (r *Registry) ResetCumulative(now time.Time) {
	for _, st := range r.cumulative {
		st.reset()
	}
	r.since = now
}

func (r *Registry) copy(from map[string]*OpStats, start, end, runStart time.Time) *Snapshot {
	s := &Snapshot{Start: start, End: end, Elapsed: end.Sub(runStart), Ops: map[string]*OpStats{}, Order: r.ops, Waits: r.waits}
	for op, st := range from {
		c := newOpStats()
		c.merge(st)
		s.Ops[op] = c
	}
	return s
}

// sortedOps lists a snapshot's operations in its order, then any others by name.
func (s *Snapshot) sortedOps() []string {
	seen := map[string]bool{}
	var out []string
	for _, op := range s.Order {
		if _, ok := s.Ops[op]; ok && !seen[op] {
			out = append(out, op)
			seen[op] = true
		}
	}
	var rest []string
	for op := range s.Ops {
		if !seen[op] {
			rest = append(rest, op)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}
