package metrics

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// OpReport is one operation's statistics over a window, as results and JSON lines
// hold them.
type OpReport struct {
	// Count is the number of completed operations (committed or requested rollback).
	Count int64 `json:"count"`
	Counts
	// PerSecond is Count over the window.
	PerSecond float64 `json:"per_second"`
	Latency   Latency `json:"latency"`
	// FirstError is the earliest of the failures counted in Errors.
	FirstError string `json:"first_error,omitempty"`
	// Waits are what the operations waited for beside the system under test, by
	// name (Registry.SetWaits); none without such waits.
	Waits map[string]OpWait `json:"waits,omitempty"`
}

// OpWait is the time operations waited for one thing: in all, and on average per
// operation that ran (completed or failed).
type OpWait struct {
	Seconds float64 `json:"seconds"`
	MeanMs  float64 `json:"mean_ms"`
}

// Report turns a snapshot's operation into an OpReport.
func (s *Snapshot) Report(op string) OpReport {
	st, ok := s.Ops[op]
	if !ok {
		return OpReport{}
	}
	n := st.Hist.Count()
	r := OpReport{Count: n, Counts: st.Counts, PerSecond: round3(s.Rate(n)), Latency: st.Hist.Summary(), FirstError: st.FirstError}
	r.WaitNs = nil // reported by name, below
	ran := n + st.Errors
	for i, name := range s.Waits {
		if r.Waits == nil {
			r.Waits = map[string]OpWait{}
		}
		var ns int64
		if i < len(st.WaitNs) {
			ns = st.WaitNs[i]
		}
		w := OpWait{Seconds: round3(float64(ns) / 1e9)}
		if ran > 0 {
			w.MeanMs = round3(float64(ns) / 1e6 / float64(ran))
		}
		r.Waits[name] = w
	}
	return r
}

// WaitSeconds is the time all operations waited for each of the snapshot's waits
// (Waits), in seconds.
func (s *Snapshot) WaitSeconds() []float64 {
	out := make([]float64, len(s.Waits))
	for _, st := range s.Ops {
		for i := range out {
			if i < len(st.WaitNs) {
				out[i] += float64(st.WaitNs[i]) / 1e9
			}
		}
	}
	return out
}

// IntervalRecord is one JSON line: an interval's throughput and latencies.
type IntervalRecord struct {
	// Time is the end of the interval by the wall clock, the clock that joins these
	// records to the monitor's samples (metrics.jsonl); ElapsedS is the same in seconds
	// since the run (the level of users) began.
	Time     time.Time `json:"time"`
	ElapsedS float64   `json:"elapsed_s"`
	// IntervalS is the interval's length in seconds.
	IntervalS float64 `json:"interval_s"`
	// Phase is "ramp" or "measure"; Users the number of users at the time.
	Phase string  `json:"phase"`
	Users int     `json:"users"`
	TPS   float64 `json:"tps"`
	QPS   float64 `json:"qps"`
	// ErrorsPS are failed operations per second.
	ErrorsPS float64             `json:"errors_per_s"`
	Latency  Latency             `json:"latency"`
	Ops      map[string]OpReport `json:"ops"`
	// IO is the interval's I/O rates, when the run reads I/O counters.
	IO *IORates `json:"io,omitempty"`
}

// NewIntervalRecord summarises an interval snapshot.
func NewIntervalRecord(s *Snapshot, phase string, users int) IntervalRecord {
	tot := s.Total()
	rec := IntervalRecord{
		Time: s.End.UTC(), ElapsedS: round3(s.Elapsed.Seconds()), IntervalS: round3(s.Duration().Seconds()),
		Phase: phase, Users: users,
		TPS: round3(s.Rate(s.Count(""))), QPS: round3(s.Rate(tot.Queries)), ErrorsPS: round3(s.Rate(tot.Errors)),
		Latency: s.Combined().Summary(), Ops: map[string]OpReport{},
	}
	for _, op := range s.sortedOps() {
		rec.Ops[op] = s.Report(op)
	}
	return rec
}

// IntervalLine is the terminal line of an interval, in the manner of sysbench's
// --report-interval: elapsed time, users, transactions and queries per second, errors
// per second and the interval's latency percentiles over all transaction types, then
// the I/O rates when there are any.
func IntervalLine(r IntervalRecord) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[ %4.0fs ] ", r.ElapsedS)
	if r.Phase != "" && r.Phase != "measure" {
		fmt.Fprintf(&b, "(%s) ", r.Phase)
	}
	fmt.Fprintf(&b, "users: %d tps: %.2f qps: %.2f err/s: %.2f lat (ms) p50: %.2f p95: %.2f p99: %.2f max: %.2f",
		r.Users, r.TPS, r.QPS, r.ErrorsPS, r.Latency.P50, r.Latency.P95, r.Latency.P99, r.Latency.Max)
	if io := r.IO.Text(); io != "" {
		b.WriteString(" | " + io)
	}
	return b.String()
}

// JSONLines writes one JSON value a line. A failed write ends the file: it keeps the
// whole lines written before (a writer that can truncate, as *os.File, is cut back to
// the end of the last one, so a full disk leaves no torn line), later writes are
// skipped, and Err says why.
type JSONLines struct {
	w     io.Writer
	lines int
	size  int64
	err   error
}

// NewJSONLines writes to w.
func NewJSONLines(w io.Writer) *JSONLines {
	return &JSONLines{w: w}
}

// Write encodes v on one line; after a failed write it does nothing and returns Err.
func (j *JSONLines) Write(v any) error {
	if j.err != nil {
		return j.err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err // v's fault, not the file's: the next value may encode
	}
	b = append(b, '\n')
	n, err := j.w.Write(b)
	if err != nil {
		if t, ok := j.w.(interface{ Truncate(int64) error }); ok && n > 0 {
			if terr := t.Truncate(j.size); terr != nil {
				err = fmt.Errorf("%w (and cutting the torn line off: %v)", err, terr)
			}
		}
		j.err = err
		return err
	}
	j.size += int64(n)
	j.lines++
	return nil
}

// Lines is how many lines were written whole.
func (j *JSONLines) Lines() int { return j.lines }

// Err is the error that ended the file, nil while every write succeeded.
func (j *JSONLines) Err() error { return j.err }

func round3(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return math.Round(v*1000) / 1000
}
