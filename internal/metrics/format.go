package metrics

import (
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
// skipped, and Err says why. A number JSON cannot hold (NaN, an infinity) is written
// as null, as WriteJSONFile writes it, with the rest of its line: NonFinite says which.
type JSONLines struct {
	w     io.Writer
	lines int
	size  int64
	err   error
	// nulls are the numbers written as null: "line 3 latency.p99_ms (NaN)".
	nulls []string
}

// NewJSONLines writes to w.
func NewJSONLines(w io.Writer) *JSONLines {
	return &JSONLines{w: w}
}

// name is the file's name for messages: w's own (an *os.File's path), or "JSON lines".
func (j *JSONLines) name() string {
	if n, ok := j.w.(interface{ Name() string }); ok {
		return n.Name()
	}
	return "JSON lines"
}

// Write encodes v on one line; after a failed write it does nothing and returns Err.
// A line whose numbers JSON cannot hold is written with them as null, and Write
// returns a *NonFiniteError naming them; the file goes on.
func (j *JSONLines) Write(v any) error {
	if j.err != nil {
		return j.err
	}
	b, replaced, err := marshalFinite(v, false)
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
	if len(replaced) == 0 {
		return nil
	}
	fields := make([]string, len(replaced))
	for i, r := range replaced {
		fields[i] = fmt.Sprintf("line %d %s", j.lines, r)
	}
	j.nulls = append(j.nulls, fields...)
	return &NonFiniteError{File: j.name(), Fields: fields}
}

// Lines is how many lines were written whole.
func (j *JSONLines) Lines() int { return j.lines }

// NonFinite names every number written as null so far, by line and JSON path; nil
// when there were none.
func (j *JSONLines) NonFinite() *NonFiniteError {
	if len(j.nulls) == 0 {
		return nil
	}
	return &NonFiniteError{File: j.name(), Fields: j.nulls}
}

// Err is the error that ended the file, nil while every write succeeded.
func (j *JSONLines) Err() error { return j.err }

func round3(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return math.Round(v*1000) / 1000
}
