package engine

import (
	"context"
	"strings"
)

// StatsSampler is implemented by engines that report what happens inside them: buffer
// hits and misses, commits, lock waits, what sessions wait on. The monitor (package
// monitor) asks for a reader once, when it starts, and reads it about once a second
// while a run goes.
type StatsSampler interface {
	NewStatsReader(ctx context.Context) (StatsReader, error)
}

// StatsReader reads one engine's statistics. ReadStats must cost the server little (a
// few reads of its statistics views) and honour ctx; it is called from one goroutine
// at a time.
type StatsReader interface {
	// Catalogue describes every statistic ReadStats may return.
	Catalogue() []StatInfo
	ReadStats(ctx context.Context) (Stats, error)
}

// Stats is one reading of an engine's internals. Counters are cumulative (since the
// server started, its statistics were reset, or for SQLite since the process opened the
// file); gauges are the state at the time of the reading. Names are those of the
// catalogue, with any <label> segment filled in.
type Stats struct {
	Counters map[string]float64
	Gauges   map[string]float64
}

// NewStats is an empty reading.
func NewStats() Stats {
	return Stats{Counters: map[string]float64{}, Gauges: map[string]float64{}}
}

// StatKind says whether a statistic only grows (a counter, whose rate is what a window
// reports) or is a level (a gauge).
type StatKind string

const (
	Counter StatKind = "counter"
	Gauge   StatKind = "gauge"
)

// StatInfo documents one statistic. Name is dot-separated; a segment written <label>
// stands for a value filled in at sampling time (a wait event, a state), which
// StatLabel makes safe.
type StatInfo struct {
	Name string
	Kind StatKind
	// Unit is what one of the value counts: "transactions", "pages", "bytes",
	// "seconds", "sessions".
	Unit string
	Help string
}

// The statistics that mean the same on every engine, so that a verdict can read them
// without knowing the engine; each engine documents which of its counters it maps to
// them. An engine leaves out those it cannot measure.
const (
	// StatCommits are committed transactions (counter).
	StatCommits = "commits"
	// StatRollbacks are rolled-back transactions (counter).
	StatRollbacks = "rollbacks"
	// StatDeadlocks are deadlocks the engine detected (counter).
	StatDeadlocks = "deadlocks"
	// StatBufferHits are page reads served by the engine's own buffer (shared_buffers,
	// the InnoDB buffer pool, SQLite's page cache) (counter, pages).
	StatBufferHits = "buffer_hits"
	// StatBufferMisses are page reads the buffer could not serve, which went to the
	// operating system (its page cache or the device) (counter, pages).
	StatBufferMisses = "buffer_misses"
	// StatLogBytes are bytes written to the write-ahead (redo) log (counter).
	StatLogBytes = "log_bytes"
	// StatLockWaits are sessions waiting for a lock at the time of the reading (gauge).
	StatLockWaits = "lock_waits"
	// StatLockWaitSeconds is the time sessions spent waiting for locks (counter).
	StatLockWaitSeconds = "lock_wait_s"
	// StatIOWaits are sessions waiting for I/O at the time of the reading: their own,
	// or another session's that they need (a WAL flush in flight) (gauge).
	StatIOWaits = "io_waits"
	// StatSessionsActive are sessions running a statement at the time of the reading,
	// the sampler's own left out (gauge).
	StatSessionsActive = "sessions_active"
)

// StatWaitPrefix begins the gauges of sessions by what they wait on:
// "wait.<class>.<event>", e.g. wait.Lock.transactionid on PostgreSQL; a session running
// on CPU (no wait) is wait.CPU.running.
const StatWaitPrefix = "wait."

// StatLabel makes text fit for a <label> segment of a statistic's name: no dots (they
// separate segments), spaces and other punctuation as '_'; empty text is "none".
func StatLabel(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "none"
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// MatchStat reports whether name is an instance of pattern, a dot-separated name whose
// <label> segments match any one segment, and returns the values of those segments in
// order.
func MatchStat(pattern, name string) (labels []string, ok bool) {
	ps, ns := strings.Split(pattern, "."), strings.Split(name, ".")
	if len(ps) != len(ns) {
		return nil, false
	}
	for i, p := range ps {
		if strings.HasPrefix(p, "<") && strings.HasSuffix(p, ">") {
			if ns[i] == "" {
				return nil, false
			}
			labels = append(labels, ns[i])
			continue
		}
		if p != ns[i] {
			return nil, false
		}
	}
	return labels, true
}

// FindStat is the catalogue entry name is an instance of.
func FindStat(catalogue []StatInfo, name string) (StatInfo, bool) {
	for _, s := range catalogue {
		if _, ok := MatchStat(s.Name, name); ok {
			return s, true
		}
	}
	return StatInfo{}, false
}
