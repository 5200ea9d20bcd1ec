//go:build linux && cgo

package preload

import (
	"context"
	"strings"
	"testing"
	"time"
)

// probeOffsets are n 8 KiB blocks from the start of a file.
func probeOffsets(n int) []int64 {
	offs := make([]int64, n)
	for i := range offs {
		offs[i] = int64(i) * 8192
	}
	return offs
}

// TestProbeQueueDepth keeps 8 writes in flight from one thread against a server that
// answers each 200 us after its arrival: every request goes out and really writes,
// none returns before its deadline, the device sees exactly 8 in flight, and each
// place's next request is stamped after the return that freed it.
func TestProbeQueueDepth(t *testing.T) {
	r, f := testRing(t, 0)
	stop := make(chan struct{})
	done := serve(r, 200*time.Microsecond, stop)
	c := attach(t, r)
	const n, depth = 200, 8
	run, err := c.Probe(context.Background(), ProbeSpec{FD: int(f.Fd()), Write: true, Size: 8192,
		Offsets: probeOffsets(n), Depth: depth, Budget: time.Minute, Flags: IOFlags{Direct: true}})
	if err != nil {
		t.Fatal(err)
	}
	close(stop)
	seen := <-done
	if run.N != n || len(run.Lats) != n {
		t.Fatalf("%d requests, %d latencies; want %d", run.N, len(run.Lats), n)
	}
	for i, l := range run.Lats {
		if l < 200*time.Microsecond {
			t.Fatalf("request %d returned %v after its arrival, before its 200us deadline", i, l)
		}
	}
	if len(run.Gaps) != n-depth {
		t.Errorf("%d gaps, want %d (each place's requests after its first)", len(run.Gaps), n-depth)
	}
	for _, g := range run.Gaps {
		if g < 0 {
			t.Fatalf("a request stamped %v before the return that freed its place", g)
		}
	}
	// each place ran 25 requests one after another, each at least 200 us
	if min := time.Duration(n/depth) * 200 * time.Microsecond; run.Elapsed < min {
		t.Errorf("elapsed %v, below the %v 25 requests of 200 us take", run.Elapsed, min)
	}
	if st, err := f.Stat(); err != nil || st.Size() != n*8192 {
		t.Errorf("file size %v (%v), want %d: the real writes did not all happen", st.Size(), err, n*8192)
	}
	maxQD := int32(0)
	for _, q := range seen.reqs {
		maxQD = max(maxQD, q.qd)
		if q.op != 1 || q.size != 8192 || !q.direct {
			t.Fatalf("the server saw %+v, want a direct 8 KiB write", q)
		}
	}
	if len(seen.reqs) != n || maxQD != depth {
		t.Errorf("the server saw %d requests at most %d in flight, want %d at %d", len(seen.reqs), maxQD, n, depth)
	}
	if len(seen.comps) != n {
		t.Errorf("%d completions reported, want %d", len(seen.comps), n)
	}
	for _, cp := range seen.comps {
		if cp.Late < 0 || cp.Latency < 200*time.Microsecond {
			t.Fatalf("completion %+v: before its deadline", cp)
		}
	}
	if h := r.Health(); h.Failed != "" || r.Inflight(0) != 0 {
		t.Errorf("health %+v, %d in flight: want no failure, nothing in flight", h, r.Inflight(0))
	}
}

// TestProbeFsync runs commits one at a time: a write then a flush, each answered
// 100 us after it arrives.
func TestProbeFsync(t *testing.T) {
	r, f := testRing(t, 0)
	stop := make(chan struct{})
	done := serve(r, 100*time.Microsecond, stop)
	c := attach(t, r)
	const n = 20
	run, err := c.Probe(context.Background(), ProbeSpec{FD: int(f.Fd()), Write: true, Fsync: true, Size: 8192,
		Offsets: probeOffsets(n), Depth: 1, Budget: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	close(stop)
	seen := <-done
	if run.N != n || len(run.Lats) != n || len(run.Flushes) != n || len(run.Gaps) != n-1 {
		t.Fatalf("%d commits, %d latencies, %d flushes, %d gaps; want %d, %d, %d, %d",
			run.N, len(run.Lats), len(run.Flushes), len(run.Gaps), n, n, n, n-1)
	}
	for i := range run.Lats {
		if run.Flushes[i] < 100*time.Microsecond || run.Lats[i] < run.Flushes[i]+100*time.Microsecond {
			t.Fatalf("commit %d: %v with a flush of %v; want a flush of 100us or more inside a commit of 200us or more",
				i, run.Lats[i], run.Flushes[i])
		}
	}
	var writes, flushes int
	for _, q := range seen.reqs {
		switch q.op {
		case 1:
			writes++
		case 2:
			flushes++
		}
	}
	if writes != n || flushes != n {
		t.Errorf("the server saw %d writes and %d flushes, want %d of each", writes, flushes, n)
	}
}

// TestProbeStops: a probe ends at its budget (each place's request in flight
// finishes), and soon after its context is done.
func TestProbeStops(t *testing.T) {
	r, f := testRing(t, 0)
	if err := f.Truncate(100000 * 8192); err != nil { // every read inside the (sparse) file
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := serve(r, time.Millisecond, stop)
	defer func() { close(stop); <-done }() // before the ring is unmapped
	c := attach(t, r)
	for _, depth := range []int{1, 4} {
		run, err := c.Probe(context.Background(), ProbeSpec{FD: int(f.Fd()), Size: 4096,
			Offsets: probeOffsets(1000), Depth: depth, Budget: time.Nanosecond})
		if err != nil {
			t.Fatal(err)
		}
		// the budget is over when the first requests return: no more go out
		if run.N != depth {
			t.Errorf("depth %d, a 1 ns budget: %d requests, want %d (the first of each place)", depth, run.N, depth)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	run, err := c.Probe(ctx, ProbeSpec{FD: int(f.Fd()), Size: 4096, Offsets: probeOffsets(100000), Depth: 1, Budget: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if run.N < 1 || run.N >= 100000 {
		t.Errorf("cancelled after 20 ms: %d of 100000 requests of 1 ms, want it stopped early", run.N)
	}
}

// TestProbeBadSpec: what a probe cannot run says why.
func TestProbeBadSpec(t *testing.T) {
	r, f := testRing(t, 0)
	c := attach(t, r)
	for _, s := range []ProbeSpec{
		{FD: int(f.Fd()), Size: 4096, Depth: 1},
		{FD: int(f.Fd()), Size: 4096, Offsets: probeOffsets(1), Depth: 0},
		{FD: int(f.Fd()), Size: 4096, Offsets: probeOffsets(1), Depth: 300},
		{FD: int(f.Fd()), Size: 4096, Offsets: probeOffsets(1), Depth: 2, Write: true, Fsync: true},
		{FD: int(f.Fd()), Size: 0, Offsets: probeOffsets(1), Depth: 1},
	} {
		if _, err := c.Probe(context.Background(), s); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
}

// TestProbeFailsClean: a request that cannot be timed (a read past the end, which the
// shim leaves untimed) fails the probe, and the requests still in flight are returned
// at their deadlines: none is left claimed, the device counts none in flight, and the
// ring does not fail waiting on a slot already given back.
func TestProbeFailsClean(t *testing.T) {
	r, f := testRing(t, 0)
	if err := f.Truncate(10 * 8192); err != nil { // requests 0-9 inside, 10 past the end
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := serve(r, time.Millisecond, stop)
	c := attach(t, r)
	run, err := c.Probe(context.Background(), ProbeSpec{FD: int(f.Fd()), Size: 8192, Offsets: probeOffsets(20), Depth: 4, Budget: time.Minute})
	close(stop)
	seen := <-done
	if err == nil || !strings.Contains(err.Error(), "could not be timed") {
		t.Fatalf("err %v, want the untimed request's", err)
	}
	if m := c.Failed(); m != "" {
		t.Fatalf("the ring failed: %s", m)
	}
	// 0-3 went out; each of the first 7 returns brought the next, up to 9; 10 failed
	if run.N != 7 || len(seen.comps) != 10 || len(seen.reqs) != 10 {
		t.Errorf("%d returned in the loop, the server saw %d requests and %d completions; want 7, 10 and 10", run.N, len(seen.reqs), len(seen.comps))
	}
	for _, cp := range seen.comps {
		if cp.Late < 0 {
			t.Errorf("completion %+v before its deadline", cp)
		}
	}
	if n := r.Inflight(0); n != 0 {
		t.Errorf("%d requests still in flight", n)
	}
}
