//go:build linux

package emulator

import (
	"context"
	"math"
	"testing"
	"time"

	"tierbench/internal/device"
)

// fixedModel answers every read and write in lat and every flush in flush, one at a
// time in the order submitted, with no queueing: figures a test can work out by hand.
type fixedModel struct{ lat, flush time.Duration }

func (fixedModel) Name() string        { return "fixed" }
func (fixedModel) Stats() device.Stats { return device.Stats{} }
func (m fixedModel) Submit(at time.Duration, r device.Request) time.Duration {
	if r.Op == device.OpFlush {
		return at + m.flush
	}
	return at + m.lat
}

func reads(n int) []device.Request {
	rs := make([]device.Request, n)
	for i := range rs {
		rs[i] = device.Request{Op: device.OpRead, Offset: int64(i) * 8192, Size: 8192}
	}
	return rs
}

// TestSimulateFloor works the closed loop out by hand: four 10 us reads at queue
// depth 1 with a 1 us gap, the first of which the path takes 30 us to carry.
func TestSimulateFloor(t *testing.T) {
	p := probe{name: "t", metric: "mean_latency_us", op: device.OpRead, size: 8192, depth: 1}
	floor := func(i int, op device.Op) time.Duration {
		if i == 0 && op == device.OpRead {
			return 30 * time.Microsecond
		}
		return 0
	}
	mean, lats := simulate(fixedModel{lat: 10 * time.Microsecond}, p, reads(4), time.Microsecond, floor)
	// latencies 30, 10, 10, 10: mean 15 us; the last completes at 30+1+10+1+10+1+10 = 63 us
	if mean != 15 || len(lats) != 4 || lats[0] != 30*time.Microsecond || lats[3] != 10*time.Microsecond {
		t.Errorf("mean %v us, lats %v: want 15 us, [30us 10us 10us 10us]", mean, lats)
	}
	iops := p
	iops.metric = "iops"
	if rate, _ := simulate(fixedModel{lat: 10 * time.Microsecond}, iops, reads(4), time.Microsecond, floor); math.Abs(rate-4/63e-6) > 1e-6*4/63e-6 {
		t.Errorf("rate %.1f/s, want %.1f (4 requests by 63 us)", rate, 4/63e-6)
	}
	// no floor: the model alone
	if mean, _ := simulate(fixedModel{lat: 10 * time.Microsecond}, p, reads(4), time.Microsecond, nil); mean != 10 {
		t.Errorf("without a floor: mean %v us, want 10", mean)
	}

	// fsync: a commit is a 10 us write, the gap, and a 2 us flush the path takes 5 us
	// to carry: 10 + 1 + 5 = 16 us, and the next commit 1 us later; two commits end at
	// 16 + 1 + 16 = 33 us.
	f := probe{name: "f", metric: "fsyncs_per_s", op: device.OpWrite, size: 8192, depth: 1, sequential: true, fsync: true}
	ws := reads(2)
	for i := range ws {
		ws[i].Op = device.OpWrite
	}
	flushFloor := func(i int, op device.Op) time.Duration {
		if op == device.OpFlush {
			return 5 * time.Microsecond
		}
		return 0
	}
	got, lats := simulate(fixedModel{lat: 10 * time.Microsecond, flush: 2 * time.Microsecond}, f, ws, time.Microsecond, flushFloor)
	if want := 2 / 33e-6; math.Abs(got-want) > 1e-6*want || lats[0] != 16*time.Microsecond {
		t.Errorf("fsync: %.1f commits/s, first %v; want %.1f/s, 16us", got, lats[0], want)
	}
}

// TestPathCostOf: an fsync probe's path costs split into the write and the flush;
// past the null run's requests a floor is the median of its.
func TestPathCostOf(t *testing.T) {
	us := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Microsecond
		}
		return out
	}
	f := probe{op: device.OpWrite, depth: 1, fsync: true}
	null := &probeRun{n: 3, elapsed: 30 * time.Microsecond, lats: us(10, 12, 20), flushes: us(3, 4, 5)}
	c := pathCostOf(f, null)
	if c.rate != 1e5 {
		t.Errorf("rate %v, want 100000 commits/s (3 in 30 us)", c.rate)
	}
	for _, k := range []struct {
		i    int
		op   device.Op
		want time.Duration
	}{{0, device.OpWrite, 7 * time.Microsecond}, {2, device.OpWrite, 15 * time.Microsecond},
		{1, device.OpFlush, 4 * time.Microsecond}, {9, device.OpWrite, 8 * time.Microsecond}, {9, device.OpFlush, 4 * time.Microsecond}} {
		if got := c.floor(k.i, k.op); got != k.want {
			t.Errorf("floor(%d, %v) = %v, want %v", k.i, k.op, got, k.want)
		}
	}
	if c := pathCostOf(probe{op: device.OpRead, depth: 32}, null); c.lats != nil || c.floor(0, device.OpRead) != 0 {
		t.Errorf("queue depth 32: per-request floors %v, want none (the rate limits it)", c.lats)
	}
}

// TestEvaluateHostLimited: the figures, the best this host's path allows, and the
// host-limited verdict, worked out by hand.
func TestEvaluateHostLimited(t *testing.T) {
	model := func() (device.Model, error) { return fixedModel{lat: 10 * time.Microsecond}, nil }
	us := time.Microsecond
	// Four reads measured at 11 us each; the path alone took 30 us for the first.
	p := probe{name: "randread", metric: "mean_latency_us", op: device.OpRead, size: 8192, depth: 1}
	run := &probeRun{reqs: reads(4), n: 4, elapsed: 50 * us, latSum: 44 * us,
		lats: []time.Duration{11 * us, 11 * us, 11 * us, 11 * us}, gaps: []time.Duration{0, 0, 0}}
	cost := pathCost{lats: []time.Duration{30 * us, 0, 0, 0}}
	rs, err := evaluate(model, p, run, cost, PathPreload)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("%d results, want the mean and the median", len(rs))
	}
	mean, med := rs[0], rs[1]
	// mean: model 10, best (30+10+10+10)/4 = 15, measured 11
	if mean.Model != 10 || mean.HostBest != 15 || mean.Measured != 11 || !mean.HostLimited ||
		math.Abs(mean.ErrorPct-10) > 1e-9 || math.Abs(mean.ErrorVsHostBestPct-(11-15)/15.0*100) > 1e-9 {
		t.Errorf("mean %+v: want model 10, best 15, measured 11, error +10%%, vs best -26.7%%, host-limited", mean)
	}
	// median: the best's middle value is 10, as the model's: not host-limited
	if med.Metric != "p50_latency_us" || med.Model != 10 || med.HostBest != 10 || med.HostLimited {
		t.Errorf("median %+v: want model 10, best 10, not host-limited", med)
	}

	// Queue depth 32: the model passes 3.2 million reads/s, the path 1000: the best is
	// the path's, and the probe host-limited.
	q := probe{name: "randread32", metric: "iops", op: device.OpRead, size: 8192, depth: 32}
	run32 := &probeRun{reqs: reads(64), n: 64, elapsed: 64 * time.Millisecond}
	rs, err = evaluate(model, q, run32, pathCost{rate: 1000}, PathPreload)
	if err != nil {
		t.Fatal(err)
	}
	if r := rs[0]; len(rs) != 1 || r.HostBest != 1000 || r.Measured != 1000 || !r.HostLimited || r.ErrorVsHostBestPct != 0 {
		t.Errorf("queue depth 32: %+v; want best 1000/s, measured 1000/s, host-limited, 0%% against the best", rs)
	}
	// a path faster than the model leaves the model's figure
	rs, _ = evaluate(model, q, run32, pathCost{rate: 1e9}, PathPreload)
	if r := rs[0]; r.HostLimited || r.HostBest != r.Model {
		t.Errorf("a fast path: %+v; want the model's figure as the best, not host-limited", r)
	}
}

// TestMedianRound picks the round with the median error of the first figure.
func TestMedianRound(t *testing.T) {
	round := func(errs ...float64) []ProbeResult {
		rs := make([]ProbeResult, len(errs))
		for i, e := range errs {
			rs[i] = ProbeResult{ErrorPct: e, Measured: e}
		}
		return rs
	}
	got := medianRound([][]ProbeResult{round(9, 100), round(-2, 200), round(30, 300)})
	if len(got) != 2 || got[0].ErrorPct != 9 || got[1].Measured != 100 || got[0].Rounds != 3 || got[1].Rounds != 3 {
		t.Errorf("of +9, -2, +30: %+v; want the +9 round whole, rounds 3", got)
	}
	if got := medianRound([][]ProbeResult{round(5), round(1)}); got[0].ErrorPct != 1 || got[0].Rounds != 2 {
		t.Errorf("of +5, +1: %+v; want the lower middle, +1", got)
	}
	if got := medianRound([][]ProbeResult{round(-7)}); got[0].ErrorPct != -7 || got[0].Rounds != 1 {
		t.Errorf("one round: %+v", got)
	}
}

// TestAnotherRound: rounds go on while one more fits the budget, up to five, and stop
// at an odd number; a cancelled context stops them.
func TestAnotherRound(t *testing.T) {
	ms := time.Millisecond
	bg := context.Background()
	for _, c := range []struct {
		n                   int
		spent, last, budget time.Duration
		want                bool
	}{
		{1, 100 * ms, 100 * ms, 1200 * ms, true},    // room for more
		{1, 1000 * ms, 1000 * ms, 1200 * ms, false}, // one round filled the budget
		{2, 1300 * ms, 300 * ms, 1200 * ms, true},   // over the budget, but even
		{3, 900 * ms, 300 * ms, 1200 * ms, true},    // 900 + 300 fits
		{3, 901 * ms, 300 * ms, 1200 * ms, false},
		{5, 50 * ms, 10 * ms, 1200 * ms, false}, // five at most
	} {
		if got := anotherRound(bg, c.n, c.spent, c.last, c.budget); got != c.want {
			t.Errorf("after %d rounds (%v, last %v, budget %v): %v, want %v", c.n, c.spent, c.last, c.budget, got, c.want)
		}
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if anotherRound(ctx, 2, 0, 0, time.Second) {
		t.Error("a cancelled context gets another round")
	}
}
