package vuser

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
	"tierbench/internal/result"
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
	// discarded counts Discard (vuser.Discarder), closed clean closes.
	discarded atomic.Int64
	ran       atomic.Int64
	newErr    error
	failUser  int
	login     time.Duration
	lastLogin atomic.Int64
	firstRun  atomic.Int64
	// errEvery > 0 makes every errEvery-th transaction fail (not fatally).
	errEvery int64
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

func (w *fakeWorker) Run(ctx context.Context, op string) Outcome {
	w.f.firstRun.CompareAndSwap(0, time.Now().UnixNano())
	n := w.f.ran.Add(1)
	if w.f.failAfter > 0 && n >= w.f.failAfter {
		return Outcome{Err: errors.New("connection refused"), Fatal: true}
	}
	if w.f.errEvery > 0 && n%w.f.errEvery == 0 {
		return Outcome{Err: errors.New("deadlock"), Queries: 1}
	}
	select {
	case <-time.After(w.f.delay):
	case <-ctx.Done():
		return Outcome{Err: ctx.Err()}
	}
	return Outcome{Queries: 3}
}

func (w *fakeWorker) Close() error   { w.f.closed.Add(1); return nil }
func (w *fakeWorker) Discard() error { w.f.discarded.Add(1); return nil }

func TestClosedLoop(t *testing.T) {
	f := &fakeWorkload{delay: 10 * time.Millisecond}
	var lines bytes.Buffer
	sum, err := Run(context.Background(), f, Config{Users: 4, Ramp: 300 * time.Millisecond, Duration: time.Second,
		Interval: 250 * time.Millisecond, Lines: &lines})
	if err != nil {
		t.Fatal(err)
	}
	// The window begins when the 300 ms ramp ends and ends at the first tick after its
	// 1 s; timers never fire early, so this holds however late a loaded host fires them.
	m := sum.Measured
	if m.Start.Before(sum.Start.Add(300*time.Millisecond)) || m.End.Before(sum.Start.Add(1300*time.Millisecond)) || m.End.After(sum.End) {
		t.Errorf("measured window %v to %v after the start (run ended at %v), want it from the ramp's end (300ms) to at least 1.3s",
			m.Start.Sub(sum.Start), m.End.Sub(sum.Start), sum.End.Sub(sum.Start))
	}
	// 4 users at 10 ms a transaction (at least: a timer never fires early): about 400/s.
	// However slow the host, the users were busy all the window (Little's law): the
	// measured transactions' latencies add up to 4 x its length, give or take what was
	// in flight at its ends and the users' own turns between transactions. The ramp's
	// transactions are not counted.
	n := m.Count("t")
	d, h := m.Duration(), m.Ops["t"].Hist
	busy := time.Duration(n) * h.Mean()
	if n == 0 || n > 4*int64(d/(10*time.Millisecond))+4 || busy < 2*d || float64(busy) > 1.05*float64(4*d+4*h.Max()) {
		t.Errorf("%d transactions of %v on average measured over %v: the 4 users were busy %v of it, want about %v", n, h.Mean(), d, busy, 4*d)
	}
	if total := f.ran.Load(); total <= n {
		t.Errorf("%d transactions ran, %d measured: the ramp-up was not excluded", total, n)
	}
	if sum.Measured.Total().Queries != 3*n {
		t.Errorf("queries %d for %d transactions", sum.Measured.Total().Queries, n)
	}
	if f.started.Load() != 4 || f.closed.Load() != 4 || f.discarded.Load() != 0 {
		t.Errorf("%d workers started, %d closed, %d discarded; a run that ends ok closes them cleanly", f.started.Load(), f.closed.Load(), f.discarded.Load())
	}
	if !strings.Contains(lines.String(), "(ramp)") || strings.Count(lines.String(), "\n") < 5 {
		t.Errorf("interval lines:\n%s", lines.String())
	}
	if sum.Status != result.StatusOK {
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
	// Open loop: at most the schedule's 50 a second start in the window (a user never
	// runs ahead of it; a closed loop would do 400). How close to 50 it gets depends on
	// the host: under load 37, users that started late and fell behind did 30, so only
	// a schedule off by 4 times is caught here.
	d := sum.Measured.Duration()
	if n, sched := sum.Measured.Count("t"), int64(50*d.Seconds()); n > sched+2 || n < sched/4 {
		t.Errorf("%d transactions at 50/s over %v", n, d)
	}
	// Each user is scheduled every 40 ms; a latency of that size means the schedule's
	// wait was counted as service, which is what this guards against (the service is 5
	// ms, a loaded host's wake-ups add a few).
	if p50 := sum.Measured.Ops["t"].Hist.Quantile(0.5); p50 >= 40*time.Millisecond {
		t.Errorf("p50 %v at an easy rate: more than the 40 ms between a user's transactions", p50)
	}
	// How late an easy rate's transactions start depends on the host's load: only that
	// it was measured, consistently, is certain.
	if l := sum.Lag; l == nil || l.MeanMs < 0 || l.MaxMs < l.MeanMs || l.LateShare < 0 || l.LateShare > 1 {
		t.Errorf("schedule lag %+v at an easy rate", l)
	}
}

func TestFatalErrorKeepsMeasurements(t *testing.T) {
	f := &fakeWorkload{delay: 5 * time.Millisecond, failAfter: 100}
	start := time.Now()
	sum, err := Run(context.Background(), f, Config{Users: 2, Duration: time.Minute, Interval: time.Second})
	if err == nil || sum == nil {
		t.Fatalf("err %v, summary %v", err, sum)
	}
	if time.Since(start) > 30*time.Second { // half the run's minute: it stopped at the failure
		t.Errorf("a failed run took %v to stop", time.Since(start))
	}
	if sum.Status != result.StatusFailed || !strings.Contains(sum.Cause, "connection refused") {
		t.Errorf("status %s cause %q", sum.Status, sum.Cause)
	}
	if n := sum.Measured.Count("t"); n < 50 {
		t.Errorf("only %d transactions kept", n)
	}
	if sum.Measured.Total().Errors < 1 {
		t.Error("the fatal error was not counted")
	}
	if f.discarded.Load() != f.started.Load() || f.closed.Load() != 0 {
		t.Errorf("%d workers started, %d discarded, %d closed; a failed run discards them", f.started.Load(), f.discarded.Load(), f.closed.Load())
	}
}

func TestInterruptKeepsMeasurements(t *testing.T) {
	f := &fakeWorkload{delay: 5 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	sum, err := Run(ctx, f, Config{Users: 2, Duration: time.Minute})
	if !errors.Is(err, context.Canceled) || sum == nil || sum.Status != result.StatusInterrupted {
		t.Fatalf("err %v summary %+v", err, sum)
	}
	// Everything that ran is kept, but for what was in flight at the interrupt (one per
	// user) and a last one a user may begin as it stops; how many ran in 500 ms depends
	// on the host's load, so that is not the measure.
	if n, ran := sum.Measured.Count("t"), f.ran.Load(); n == 0 || n < ran-4 {
		t.Errorf("%d transactions kept of %d run", n, ran)
	}
	if f.discarded.Load() != 2 || f.closed.Load() != 0 {
		t.Errorf("%d discarded, %d closed; an interrupted run discards its 2 workers", f.discarded.Load(), f.closed.Load())
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
	if err == nil || sum == nil || sum.Status != result.StatusFailed || !strings.Contains(err.Error(), "connection refused") {
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
			sum, err := Run(context.Background(), f, Config{Users: 1, Ramp: 200 * time.Millisecond, Duration: time.Second,
				Interval: 200 * time.Millisecond, Lines: &lines, JSON: metrics.NewJSONLines(&js), IO: io.read})
			if err != nil {
				t.Fatal(err)
			}
			var recs []metrics.IntervalRecord
			for _, l := range strings.Split(strings.TrimSpace(js.String()), "\n") {
				var r metrics.IntervalRecord
				if err := json.Unmarshal([]byte(l), &r); err != nil {
					t.Fatal(err)
				}
				recs = append(recs, r)
			}
			// A reading before the users start and one per interval record: the ramp's,
			// then 5 in the window. The window's end is fixed, so a loaded host that fires
			// the ramp's end late gets fewer intervals, never more; the test needs 3 (a
			// ramp's end 800 ms late; 390 ms was the worst of 35,000 timers at load 28).
			if len(recs) < 3 || len(recs) > 6 || io.n != len(recs)+1 {
				t.Fatalf("%d readings, %d interval records, want 7 and 6:\n%s", io.n, len(recs), js.String())
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
			} else if !strings.Contains(sum.IOError, "server gone") || sum.Status != result.StatusOK {
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
	if err == nil || sum == nil || sum.Status != result.StatusFailed {
		t.Fatalf("err %v, summary %+v", err, sum)
	}
	if !strings.Contains(err.Error(), "user 30: too many clients already") {
		t.Errorf("error %q does not name user 30 and the cause", err)
	}
	if f.ran.Load() != 0 {
		t.Errorf("%d transactions ran although a user could not log in", f.ran.Load())
	}
	if f.started.Load() == 0 || f.discarded.Load() != f.started.Load() {
		t.Errorf("%d workers opened, %d discarded", f.started.Load(), f.discarded.Load())
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
	if !errors.Is(err, context.Canceled) || sum == nil || sum.Status != result.StatusInterrupted {
		t.Fatalf("err %v, summary %+v", err, sum)
	}
	if d := time.Since(start); d > 30*time.Second { // half the run's minute: it stopped at the interrupt
		t.Errorf("stopping took %v", d)
	}
	if f.discarded.Load() != f.started.Load() || f.closed.Load() != 0 || f.ran.Load() != 0 {
		t.Errorf("%d opened, %d discarded, %d closed, %d transactions", f.started.Load(), f.discarded.Load(), f.closed.Load(), f.ran.Load())
	}
}

// TestUsersShareBoundedHandles: beyond maxHandles users, users share metrics handles,
// so a run's histograms do not grow with its users, and every transaction is still
// counted once.
func TestUsersShareBoundedHandles(t *testing.T) {
	f := &fakeWorkload{delay: 5 * time.Millisecond}
	users := maxHandles*3 + 5
	var handles int
	// 1.5 s: the users must get their handles and finish a transaction inside the
	// window; on a loaded 2-core host starting them took longer than 300 ms.
	sum, err := Run(context.Background(), f, Config{Users: users, Duration: 1500 * time.Millisecond, Interval: 500 * time.Millisecond,
		StopGrace: time.Second, onStart: func(r *run) { handles = len(r.handles) }})
	if err != nil {
		t.Fatal(err)
	}
	if handles != maxHandles {
		t.Errorf("%d handles for %d users, want %d", handles, users, maxHandles)
	}
	if n, ran := sum.Measured.Count("t"), f.ran.Load(); n == 0 || n > ran {
		t.Errorf("counted %d of %d transactions run", n, ran)
	}
	_, err = Run(context.Background(), f, Config{Users: 3, Duration: 50 * time.Millisecond, onStart: func(r *run) { handles = len(r.handles) }})
	if err != nil || handles != 3 {
		t.Errorf("3 users: %d handles, %v; want one each", handles, err)
	}
}

// recordingObserver keeps the interval records a run shows its Observer.
type recordingObserver struct {
	records []metrics.IntervalRecord
}

func (o *recordingObserver) Interval(rec metrics.IntervalRecord) { o.records = append(o.records, rec) }

// TestObserver: the observer gets every interval record the JSON lines get, and a
// plan's Mark the level's window by its label, begun after the ramp and ended with
// the run.
func TestObserver(t *testing.T) {
	f := &fakeWorkload{delay: 5 * time.Millisecond}
	var b bytes.Buffer
	obs := &recordingObserver{}
	var marks []string
	var markTimes []time.Time
	plan := Plan{Ramp: 100 * time.Millisecond, Duration: 300 * time.Millisecond, Interval: 100 * time.Millisecond, Observer: obs,
		Mark: func(label string, start bool) {
			marks = append(marks, fmt.Sprintf("%s %v", label, start))
			markTimes = append(markTimes, time.Now())
		}}
	sum, err := Run(context.Background(), f, plan.Level(2, metrics.NewJSONLines(&b)))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(b.String(), "\n"); len(obs.records) != lines || lines < 3 {
		t.Errorf("observer saw %d interval records, the JSON lines have %d", len(obs.records), lines)
	}
	if strings.Join(marks, ",") != "2 users true,2 users false" || markTimes[0].Before(sum.MeasureStart) || markTimes[1].Before(sum.End) {
		t.Errorf("marks %v at %v; the summary's window is %v to %v", marks, markTimes, sum.MeasureStart, sum.End)
	}
	last := obs.records[len(obs.records)-1]
	if last.Phase != "measure" || last.Time.IsZero() || last.Time.After(sum.End) {
		t.Errorf("last record %+v: want a measured interval that ended by %v", last, sum.End)
	}
}
