package oltp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tierbench/internal/metrics"
)

// fakeWorkload's workers take delay per transaction; failAfter > 0 makes the run's
// failAfter-th transaction report a lost connection.
// NewWorker takes login, and fails with newErr for every user or, when failUser > 0,
// only for user failUser (1-based). lastLogin and firstRun are UnixNano times.
type fakeWorkload struct {
	delay     time.Duration
	failAfter int64
	started   atomic.Int64
	closed    atomic.Int64
	ran       atomic.Int64
	newErr    error
	failUser  int
	login     time.Duration
	lastLogin atomic.Int64
	firstRun  atomic.Int64
}

func (f *fakeWorkload) Ops() []string { return []string{"t"} }

func (f *fakeWorkload) NewWorker(ctx context.Context, user int) (Worker, error) {
	if f.login > 0 {
		select {
		case <-time.After(f.login):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if f.newErr != nil && (f.failUser == 0 || f.failUser == user+1) {
		return nil, f.newErr
	}
	f.started.Add(1)
	f.lastLogin.Store(time.Now().UnixNano())
	return &fakeWorker{f: f}, nil
}

type fakeWorker struct{ f *fakeWorkload }

func (w *fakeWorker) Next() Txn { return Txn{Op: "t"} }

func (w *fakeWorker) Run(ctx context.Context, op string) Result {
	w.f.firstRun.CompareAndSwap(0, time.Now().UnixNano())
	n := w.f.ran.Add(1)
	if w.f.failAfter > 0 && n >= w.f.failAfter {
		return Result{Err: errors.New("connection refused"), Fatal: true}
	}
	select {
	case <-time.After(w.f.delay):
	case <-ctx.Done():
		return Result{Err: ctx.Err()}
	}
	return Result{Queries: 3}
}

func (w *fakeWorker) Close() error { w.f.closed.Add(1); return nil }

func TestClosedLoop(t *testing.T) {
	f := &fakeWorkload{delay: 10 * time.Millisecond}
	var lines bytes.Buffer
	sum, err := Run(context.Background(), f, Config{Users: 4, Ramp: 300 * time.Millisecond, Duration: time.Second,
		Interval: 250 * time.Millisecond, Lines: &lines})
	if err != nil {
		t.Fatal(err)
	}
	// 4 users at 10 ms a transaction: about 400/s in the 1 s window; the ramp's
	// transactions are not counted.
	n := sum.Measured.Count("t")
	if n < 250 || n > 420 {
		t.Errorf("%d transactions measured, want about 400", n)
	}
	if d := sum.Measured.Duration(); d < 950*time.Millisecond || d > 1100*time.Millisecond {
		t.Errorf("measured window %v, want 1 s", d)
	}
	if total := f.ran.Load(); total <= n {
		t.Errorf("%d transactions ran, %d measured: the ramp-up was not excluded", total, n)
	}
	if sum.Measured.Total().Queries != 3*n {
		t.Errorf("queries %d for %d transactions", sum.Measured.Total().Queries, n)
	}
	if f.started.Load() != 4 || f.closed.Load() != 4 {
		t.Errorf("%d workers started, %d closed", f.started.Load(), f.closed.Load())
	}
	if !strings.Contains(lines.String(), "(ramp)") || strings.Count(lines.String(), "\n") < 5 {
		t.Errorf("interval lines:\n%s", lines.String())
	}
	if sum.Status != StatusOK {
		t.Errorf("status %s", sum.Status)
	}
	if sum.Lag != nil {
		t.Errorf("a closed loop has a schedule lag: %+v", sum.Lag)
	}
}

func TestOpenLoopNoCoordinatedOmission(t *testing.T) {
	// One user asked for 100 transactions/s while each takes 50 ms: the server can do
	// only 20/s, so the queue grows and latency measured from the intended start grows
	// with it, far beyond the 50 ms service time.
	f := &fakeWorkload{delay: 50 * time.Millisecond}
	sum, err := Run(context.Background(), f, Config{Users: 1, Rate: 100, Duration: time.Second, Interval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h := sum.Measured.Ops["t"].Hist
	if p99 := h.Quantile(0.99); p99 < 500*time.Millisecond {
		t.Errorf("p99 %v: latency does not include the time behind schedule", p99)
	}
	// Transaction k starts k x 40 ms behind its schedule (50 ms taken, 10 ms allowed):
	// every one after the first is late by one interval or more.
	if l := sum.Lag; l == nil || l.LateShare < 0.8 || l.MeanMs < 100 || l.MaxMs < l.MeanMs {
		t.Errorf("schedule lag %+v, want most transactions late, by 100 ms or more on average", l)
	}
	// And at a rate the server keeps up with, latency is the service time.
	f = &fakeWorkload{delay: 5 * time.Millisecond}
	sum, err = Run(context.Background(), f, Config{Users: 2, Rate: 50, Duration: time.Second, Interval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if n := sum.Measured.Count("t"); n < 40 || n > 55 {
		t.Errorf("%d transactions at 50/s for 1 s", n)
	}
	if p50 := sum.Measured.Ops["t"].Hist.Quantile(0.5); p50 > 20*time.Millisecond {
		t.Errorf("p50 %v at an easy rate", p50)
	}
	// Each user is due every 40 ms and busy 5 ms of them: on time, timer wake-ups aside.
	if l := sum.Lag; l == nil || l.LateShare > 0.5 {
		t.Errorf("schedule lag %+v at an easy rate, want most transactions on time", l)
	}
}

func TestFatalErrorKeepsMeasurements(t *testing.T) {
	f := &fakeWorkload{delay: 5 * time.Millisecond, failAfter: 100}
	start := time.Now()
	sum, err := Run(context.Background(), f, Config{Users: 2, Duration: time.Minute, Interval: time.Second})
	if err == nil || sum == nil {
		t.Fatalf("err %v, summary %v", err, sum)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("a failed run took %v to stop", time.Since(start))
	}
	if sum.Status != StatusFailed || !strings.Contains(sum.Cause, "connection refused") {
		t.Errorf("status %s cause %q", sum.Status, sum.Cause)
	}
	if n := sum.Measured.Count("t"); n < 50 {
		t.Errorf("only %d transactions kept", n)
	}
	if sum.Measured.Total().Errors < 1 {
		t.Error("the fatal error was not counted")
	}
	if f.closed.Load() != f.started.Load() {
		t.Errorf("%d workers started, %d closed", f.started.Load(), f.closed.Load())
	}
}

func TestInterruptKeepsMeasurements(t *testing.T) {
	f := &fakeWorkload{delay: 5 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	sum, err := Run(ctx, f, Config{Users: 2, Duration: time.Minute})
	if !errors.Is(err, context.Canceled) || sum == nil || sum.Status != StatusInterrupted {
		t.Fatalf("err %v summary %+v", err, sum)
	}
	if sum.Measured.Count("t") < 50 {
		t.Errorf("only %d transactions kept", sum.Measured.Count("t"))
	}
}

func TestBadConfig(t *testing.T) {
	f := &fakeWorkload{}
	for _, c := range []Config{{Users: 0, Duration: time.Second}, {Users: -3, Duration: time.Second},
		{Users: 1}, {Users: 1, Duration: time.Second, Ramp: -time.Second}, {Users: 1, Duration: time.Second, Rate: -1}} {
		if _, err := Run(context.Background(), f, c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	f.newErr = errors.New("dial tcp 127.0.0.1:1: connection refused")
	sum, err := Run(context.Background(), f, Config{Users: 2, Duration: time.Minute})
	if err == nil || sum == nil || sum.Status != StatusFailed || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("unreachable server: err %v summary %+v", err, sum)
	}
}

// fakeIO is a counter that grows by 1 MB per second of its own clock, which advances
// one second a reading: every interval and the window read exactly 1 MB/s written.
// failAt > 0 makes that reading fail.
type fakeIO struct {
	n      int
	failAt int
}

func (f *fakeIO) read(ctx context.Context) (metrics.IOSample, error) {
	f.n++
	if f.n == f.failAt {
		return metrics.IOSample{}, errors.New("server gone for a moment")
	}
	return metrics.IOSample{At: time.Unix(int64(f.n), 0),
		Engine: &metrics.IOCount{Read: 7, Written: int64(f.n) * 1_000_000}}, nil
}

func TestIORates(t *testing.T) {
	for _, tc := range []struct {
		name   string
		failAt int
	}{{"every reading", 0}, {"a failed reading", 3}} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeWorkload{delay: time.Millisecond}
			io := &fakeIO{failAt: tc.failAt}
			var lines, js bytes.Buffer
			sum, err := Run(context.Background(), f, Config{Users: 1, Ramp: 200 * time.Millisecond, Duration: 600 * time.Millisecond,
				Interval: 200 * time.Millisecond, Lines: &lines, JSON: metrics.NewJSONLines(&js), IO: io.read})
			if err != nil {
				t.Fatal(err)
			}
			// A reading before the users start, one per interval: ramp end, 3 in the window.
			if io.n != 5 {
				t.Errorf("%d readings, want 5", io.n)
			}
			var recs []metrics.IntervalRecord
			for _, l := range strings.Split(strings.TrimSpace(js.String()), "\n") {
				var r metrics.IntervalRecord
				if err := json.Unmarshal([]byte(l), &r); err != nil {
					t.Fatal(err)
				}
				recs = append(recs, r)
			}
			if len(recs) != 4 {
				t.Fatalf("%d interval records, want 4:\n%s", len(recs), js.String())
			}
			for i, r := range recs {
				// With reading 3 failed, interval 2 (ending at it) and interval 3 (starting
				// at it) have no rates.
				missing := tc.failAt == 3 && (i == 1 || i == 2)
				if missing {
					if r.IO != nil {
						t.Errorf("interval %d: rates %+v from a failed reading", i, r.IO)
					}
					continue
				}
				if r.IO == nil || r.IO.Engine == nil || *r.IO.Engine != (metrics.IORate{ReadMBs: 0, WriteMBs: 1}) {
					t.Errorf("interval %d: rates %+v, want 1 MB/s written", i, r.IO)
				}
			}
			if sum.IO == nil || *sum.IO.Engine != (metrics.IORate{WriteMBs: 1}) {
				t.Errorf("window rates %+v, want 1 MB/s written", sum.IO)
			}
			if tc.failAt == 0 {
				if sum.IOError != "" {
					t.Errorf("IOError %q", sum.IOError)
				}
				if !strings.Contains(lines.String(), "io MB/s r: 0.00 w: 1.00") {
					t.Errorf("interval lines without the rates:\n%s", lines.String())
				}
			} else if !strings.Contains(sum.IOError, "server gone") || sum.Status != StatusOK {
				t.Errorf("status %s, IOError %q: want ok with the reading's error", sum.Status, sum.IOError)
			}
			l := NewLevelReport(sum, f.Ops())
			if l.IO != sum.IO || l.IOError != sum.IOError {
				t.Errorf("level report IO %+v %q", l.IO, l.IOError)
			}
		})
	}
}

func TestUsersConnectBeforeTheClockStarts(t *testing.T) {
	// 40 logins of 20 ms, 16 at a time: at least 3 rounds, 60 ms.
	f := &fakeWorkload{delay: time.Millisecond, login: 20 * time.Millisecond}
	sum, err := Run(context.Background(), f, Config{Users: 40, Ramp: 200 * time.Millisecond, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if f.started.Load() != 40 || f.closed.Load() != 40 {
		t.Errorf("%d workers opened, %d closed; want 40 and 40", f.started.Load(), f.closed.Load())
	}
	if first, last := f.firstRun.Load(), f.lastLogin.Load(); first < last {
		t.Errorf("a transaction ran %v before the last user had logged in", time.Duration(last-first))
	}
	if sum.Connect < 60*time.Millisecond || sum.Connect > 2*time.Second {
		t.Errorf("Connect %v, want about 60 ms (3 rounds of 16 parallel 20 ms logins)", sum.Connect)
	}
	if got := NewLevelReport(sum, f.Ops()).ConnectSeconds; math.Abs(got-sum.Connect.Seconds()) > 0.0006 {
		t.Errorf("connect_seconds %v, want %v to the millisecond", got, sum.Connect.Seconds())
	}
	if got := sum.MeasureStart.Sub(sum.Start); got < 200*time.Millisecond {
		t.Errorf("window began %v after the start: the logins ate into the 200 ms ramp", got)
	}
	if n := time.Unix(0, f.lastLogin.Load()); n.After(sum.Start) {
		t.Errorf("last login at %v, after the run's start %v", n, sum.Start)
	}
}

func TestLoginFailureClosesTheOthers(t *testing.T) {
	f := &fakeWorkload{login: time.Millisecond, failUser: 30, newErr: errors.New("too many clients already")}
	sum, err := Run(context.Background(), f, Config{Users: 50, Duration: time.Minute})
	if err == nil || sum == nil || sum.Status != StatusFailed {
		t.Fatalf("err %v, summary %+v", err, sum)
	}
	if !strings.Contains(err.Error(), "user 30: too many clients already") {
		t.Errorf("error %q does not name user 30 and the cause", err)
	}
	if f.ran.Load() != 0 {
		t.Errorf("%d transactions ran although a user could not log in", f.ran.Load())
	}
	if f.started.Load() == 0 || f.closed.Load() != f.started.Load() {
		t.Errorf("%d workers opened, %d closed", f.started.Load(), f.closed.Load())
	}
	if sum.Measured == nil || sum.Measured.Count("t") != 0 {
		t.Errorf("measured %+v, want an empty snapshot", sum.Measured)
	}
}

func TestInterruptDuringLogins(t *testing.T) {
	f := &fakeWorkload{login: 50 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(80*time.Millisecond, cancel)
	start := time.Now()
	sum, err := Run(ctx, f, Config{Users: 200, Duration: time.Minute})
	if !errors.Is(err, context.Canceled) || sum == nil || sum.Status != StatusInterrupted {
		t.Fatalf("err %v, summary %+v", err, sum)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("stopping took %v", d)
	}
	if f.closed.Load() != f.started.Load() || f.ran.Load() != 0 {
		t.Errorf("%d opened, %d closed, %d transactions", f.started.Load(), f.closed.Load(), f.ran.Load())
	}
}

// recordingObserver keeps what a run shows its Observer.
type recordingObserver struct {
	records []metrics.IntervalRecord
	windows []string
	starts  []time.Time
	ends    []time.Time
}

func (o *recordingObserver) Interval(rec metrics.IntervalRecord) { o.records = append(o.records, rec) }

func (o *recordingObserver) Window(users int, start bool, at time.Time) {
	edge := "end"
	if start {
		o.starts, edge = append(o.starts, at), "start"
	} else {
		o.ends = append(o.ends, at)
	}
	o.windows = append(o.windows, fmt.Sprintf("%s %d", edge, users))
}

// TestObserver: the observer gets every interval record the JSON lines get, and the
// measured window's two ends at the times the summary gives them.
func TestObserver(t *testing.T) {
	f := &fakeWorkload{delay: 5 * time.Millisecond}
	var b bytes.Buffer
	obs := &recordingObserver{}
	sum, err := Run(context.Background(), f, Config{Users: 2, Ramp: 100 * time.Millisecond, Duration: 300 * time.Millisecond,
		Interval: 100 * time.Millisecond, JSON: metrics.NewJSONLines(&b), Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(b.String(), "\n"); len(obs.records) != lines || lines < 3 {
		t.Errorf("observer saw %d interval records, the JSON lines have %d", len(obs.records), lines)
	}
	if strings.Join(obs.windows, ",") != "start 2,end 2" || !obs.starts[0].Equal(sum.MeasureStart) || !obs.ends[0].Equal(sum.End) {
		t.Errorf("windows %v at %v and %v; the summary's window is %v to %v", obs.windows, obs.starts, obs.ends, sum.MeasureStart, sum.End)
	}
	last := obs.records[len(obs.records)-1]
	if last.Phase != "measure" || last.Time.IsZero() || last.Time.After(sum.End) {
		t.Errorf("last record %+v: want a measured interval that ended by %v", last, sum.End)
	}
}
