package device

import (
	"container/heap"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func measuredRegistry(t *testing.T) *Registry {
	t.Helper()
	r, err := Load("testdata/measured.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The completions of testdata/measured.yaml's devices, worked out by hand. Every
// latency there is a constant, so the draws do not matter.
func TestMeasuredServiceTimes(t *testing.T) {
	r := measuredRegistry(t)
	t.Run("servers by Little's law", func(t *testing.T) {
		// mconst: reads 10 us at 200000 IOPS: x = 2 requests at once, K = 2
		runSteps(t, build(t, r, "mconst"), []step{
			{0, rd(0, 8192), 10 * us},
			{0, rd(8192, 8192), 10 * us},
			{0, rd(16384, 8192), 20 * us}, // waits for a server, then 10 us x K/x = 1
		})
	})
	t.Run("a fractional concurrency stretches the waiting requests", func(t *testing.T) {
		// mfrac: 150000 IOPS x 10 us = 1.5, K = 2 (writes: 100000 x 20 us = 2);
		// a request that waited takes 10 us x 2/1.5 = 13.333 us
		runSteps(t, build(t, r, "mfrac"), []step{
			{0, rd(0, 8192), 10 * us},
			{0, rd(8192, 8192), 10 * us},
			{0, rd(16384, 8192), 10*us + 13333},
		})
	})
	t.Run("separate queues", func(t *testing.T) {
		// msep: one read server (100000 x 10 us) and one write server (50000 x 20 us)
		runSteps(t, build(t, r, "msep"), []step{
			{0, rd(0, 8192), 10 * us},
			{0, wr(0, 8192), 20 * us},
			{0, rd(8192, 8192), 20 * us},
		})
	})
	t.Run("shared queues", func(t *testing.T) {
		// mconst, shared: reads and writes use the same two servers
		runSteps(t, build(t, r, "mconst"), []step{
			{0, rd(0, 8192), 10 * us},
			{0, wr(0, 8192), 20 * us},
			{0, rd(8192, 8192), 20 * us}, // the first server frees at 10 us
		})
	})
	t.Run("flush waits for acknowledged writes", func(t *testing.T) {
		runSteps(t, build(t, r, "mconst"), []step{
			{0, wr(0, 8192), 20 * us},
			{5 * us, fl(1), 70 * us}, // from 20 us, 50 us
		})
	})
	t.Run("a flush waits for its own file's writes only", func(t *testing.T) {
		// mconst: two servers, writes 20 us, flushes 50 us
		runSteps(t, build(t, r, "mconst"), []step{
			{0, wr(0, 8192), 20 * us},                      // file 1, first server
			{0, wrOf(2, 8192, 8192), 20 * us},              // file 2, second server
			{0, wrOf(2, 16384, 8192), 40 * us},             // file 2, waits for a server
			{25 * us, fl(1), 75 * us},                      // file 1's write is done: 25 + 50
			{25 * us, fl(2), 90 * us},                      // from file 2's last write at 40
			{25 * us, Request{Op: OpFlush}, 90 * us},       // file 0: every write, from 40
			{30 * us, wrOf(0, 24576, 8192), 30*us + 20*us}, // no file: a free server at 30
			{35 * us, fl(1), 85 * us},                      // not waiting for the fileless write
		})
	})
	t.Run("bytes beyond the block at the transfer rate", func(t *testing.T) {
		// 1,000,000 bytes past 8 KiB at 1000 MB/s: 1 ms more
		runSteps(t, build(t, r, "mconst"), []step{
			{0, rd(0, 8192+1_000_000), 10*us + ms},
		})
	})
}

// mbent's reads: 10 us up to p95, 110 us at p99 and p99.9, a tail of 210 us and a
// mean of 12.1 us. Were every piece at its lower quantile the mean would be
// 0.01x10 (below p1) + 0.98x10 (p1 to p99) + 0.009x110 + 0.001x210 = 11.1 us; the one
// rising piece (p95 to p99, 0.04 wide, 100 us) adds 4 us/(k+1), so k = 3.
func TestMeasuredQuantilesBend(t *testing.T) {
	p, err := measuredRegistry(t).Resolve("mbent")
	if err != nil {
		t.Fatal(err)
	}
	q := quantilesOf(p, "read")
	if math.Abs(q.k-3) > 1e-9 {
		t.Errorf("k = %v, want 3", q.k)
	}
	for _, c := range []struct {
		u    float64
		want time.Duration
	}{
		{0.005, 10 * us},      // below p1: flat
		{0.5, 10 * us},        // a flat piece
		{0.97, 10*us + 12500}, // half way from p95 to p99: 10 + 100 x 0.5^3
		{0.995, 110 * us},     // flat from p99 to p99.9
		{0.9995, 210 * us},    // half way up the tail's ramp, 110 to 310 us
	} {
		if got := q.at(c.u); got != c.want {
			t.Errorf("at(%v) = %v, want %v", c.u, got, c.want)
		}
	}
	if got := q.Mean(); got != 12100 {
		t.Errorf("mean %v, want 12.1us", got)
	}
}

func TestMeasuredProfileChecks(t *testing.T) {
	good, err := os.ReadFile("testdata/measured.yaml")
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(string(good), "---", 2)[0]
	for _, c := range []struct{ from, to, want string }{
		{"read_p50_us: 10\n", "read_p50_us: 9\n", "field read_p25_us (10) must not exceed read_p50_us (9)"},
		{"write_mean_us: 20\n", "write_mean_us: 30\n", "field write_mean_us (30) must not exceed write_tail_us (20)"},
		{"flush_p999_us: 50\n", "flush_p999_us: 60\n", "field flush_p999_us (60) must not exceed flush_tail_us (50)"},
		{"read_iops: 200000\n", "read_iops: 0\n", "field read_iops must be > 0, got 0"},
		{"queues: shared\n", "queues: both\n", `field queues must be one of shared, separate, got "both"`},
		{"read_mean_us: 10\n", "", "is missing field read_mean_us"},
	} {
		text := strings.Replace(first, c.from, c.to, 1)
		_, err := ParseProfiles("m.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q -> %q: error %v, want %q", c.from, c.to, err, c.want)
		}
	}
}

// The same requests always complete at the same times: the draws come from a fixed
// seed, not a random source.
func TestMeasuredDeterministic(t *testing.T) {
	r := measuredRegistry(t)
	a, b := build(t, r, "mbent"), build(t, r, "mbent")
	for i := range int64(1000) {
		at := time.Duration(i) * 30 * us
		if x, y := a.Submit(at, rd(i*8192, 8192)), b.Submit(at, rd(i*8192, 8192)); x != y {
			t.Fatalf("request %d: %v and %v", i, x, y)
		}
	}
}

// A fit whose fdatasync cost nothing beyond the write leaves every flush figure at 0
// (the pairs' mean less the write's, clamped): such a profile parses, and its flush
// completes when the writes it waits for do. A negative mean is refused.
func TestMeasuredFlushOfZero(t *testing.T) {
	good, err := os.ReadFile("testdata/measured.yaml")
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(string(good), "---", 2)[0]
	zero := first
	for _, key := range []string{"p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p999", "tail", "mean"} {
		from := "flush_" + key + "_us: 50\n"
		if !strings.Contains(zero, from) {
			t.Fatalf("testdata/measured.yaml has no %q", from)
		}
		zero = strings.Replace(zero, from, "flush_"+key+"_us: 0\n", 1)
	}
	ps, err := ParseProfiles("m.yaml", []byte(zero))
	if err != nil {
		t.Fatalf("a flush of 0 refused: %v", err)
	}
	m := NewMeasured("mconst", ps[0])
	runSteps(t, m, []step{
		{0, wr(0, 8192), 20 * us},
		{5 * us, fl(1), 20 * us}, // waits for the write, then nothing
		{30 * us, fl(1), 30 * us},
	})

	negative := strings.Replace(zero, "flush_mean_us: 0\n", "flush_mean_us: -1\n", 1)
	_, err = ParseProfiles("m.yaml", []byte(negative))
	if want := "field flush_mean_us must be >= 0, got -1"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a flush mean of -1: error %v, want %q", err, want)
	}
	// reads and writes still need a mean above 0: the servers' count divides by it
	_, err = ParseProfiles("m.yaml", []byte(strings.Replace(first, "read_mean_us: 10\n", "read_mean_us: 0\n", 1)))
	if want := "field read_mean_us must be > 0, got 0"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a read mean of 0: error %v, want %q", err, want)
	}
}

func wrOf(file uint64, off, size int64) Request {
	return Request{Op: OpWrite, Offset: off, Size: size, File: file}
}

// A page cache's writeback above dirty_ratio carries the file of each page, so that a
// later fsync of that file waits for it on a device that scopes its flush to the file.
func TestPageCacheWritebackKeepsTheFile(t *testing.T) {
	// pagecache over mconst: 4 pages, 2 may be dirty; a page copied in 1 us; mconst
	// writes take 20 us on either of two servers, its flush 50 us
	m := build(t, measuredRegistry(t), "pagecache(mconst,size=16KiB,copy=4.096GB/s,dirty_ratio=0.5)")
	runSteps(t, m, []step{
		{0, wrOf(7, 0, 4096), 1 * us},
		{0, wrOf(8, 4096, 4096), 1 * us},
		// a third dirty page: file 7's page 0, the oldest, is written back, 0-20 us
		{0, wrOf(8, 8192, 4096), 21 * us},
		// file 7 has nothing dirty, but its page is still being written: 20 + 50
		{5 * us, fl(7), 70 * us},
		// file 8's two pages go as one write on the free server, 5-25, then 50
		{5 * us, fl(8), 75 * us},
	})
}

// mdeep's reads take 10 us and pass 100000 a second at depth 32 and 400000 at depth
// 128: x(32) = 1 and x(128) = 4 requests at once, so K = 4 servers. Its writes (20
// us, 50000 a second at depth 32, no deeper probe) stay at x = 1 at every depth.
func TestMeasuredDepthCurve(t *testing.T) {
	r := measuredRegistry(t)
	m := build(t, r, "mdeep").(*Measured)
	if got := m.Servers(); got != [2]int{4, 4} {
		t.Errorf("servers %v, want 4 shared", got)
	}
	for _, c := range []struct {
		op   Op
		n    int
		want float64
	}{
		{OpRead, 1, 1}, {OpRead, 32, 1}, {OpRead, 80, 2.5}, // half way from 32 to 128
		{OpRead, 128, 4}, {OpRead, 500, 4}, {OpWrite, 80, 1}, {OpWrite, 500, 1},
	} {
		if got := m.curve[c.op].at(c.n); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%v x(%d) = %v, want %v", c.op, c.n, got, c.want)
		}
	}
	t.Run("a burst is stretched by the requests in flight", func(t *testing.T) {
		// with n in flight and x(n) = 1, each takes min(n, 4) x 10 us
		runSteps(t, build(t, r, "mdeep"), []step{
			{0, rd(0, 8192), 10 * us},           // alone
			{0, rd(8192, 8192), 20 * us},        // 2 in flight
			{0, rd(16384, 8192), 30 * us},       // 3
			{0, rd(24576, 8192), 40 * us},       // 4
			{0, rd(32768, 8192), 10*us + 40*us}, // 5: the first server frees at 10
		})
	})
	// Closed loops at depth d: each completion submits the next read. The rate is
	// x(d) / 10 us: 100000 at 32 (each of 4 servers takes 4/1 x 10 us), 250000 at 80
	// (4/2.5 x 10 us), 400000 at 128 (10 us).
	for _, c := range []struct {
		depth int
		want  float64
	}{{32, 100000}, {80, 250000}, {128, 400000}} {
		got := closedLoopRate(build(t, r, "mdeep"), c.depth, 40000)
		if math.Abs(got-c.want)/c.want > 0.01 {
			t.Errorf("depth %d: %.0f reads a second, want %.0f", c.depth, got, c.want)
		}
	}
}

// closedLoopRate keeps depth reads in flight until n have been submitted and returns
// how many completed a second.
func closedLoopRate(m Model, depth, n int) float64 {
	var pending DurationHeap
	for i := range depth {
		heap.Push(&pending, m.Submit(0, rd(int64(i)*8192, 8192)))
	}
	var last time.Duration
	for i := depth; i < n; i++ {
		at := heap.Pop(&pending).(time.Duration)
		heap.Push(&pending, m.Submit(at, rd(int64(i%1000)*8192, 8192)))
	}
	for pending.Len() > 0 {
		last = max(last, heap.Pop(&pending).(time.Duration))
	}
	return float64(n) / last.Seconds()
}

// mqueue is mconst (two servers, writes 20 us, flushes 50 us) behind a block layer
// that holds 2 requests in the device's queue.
func TestMeasuredQueueBound(t *testing.T) {
	r := measuredRegistry(t)
	burst := []step{
		// file 8 writes back 6 pages at once: two at a time, 20 us each
		{0, wrOf(8, 0, 8192), 20 * us},
		{0, wrOf(8, 8192, 8192), 20 * us},
		{0, wrOf(8, 16384, 8192), 40 * us},
		{0, wrOf(8, 24576, 8192), 40 * us},
		{0, wrOf(8, 32768, 8192), 60 * us},
		{0, wrOf(8, 40960, 8192), 60 * us},
	}
	t.Run("a newcomer of another file waits behind the queue, not the backlog", func(t *testing.T) {
		runSteps(t, build(t, r, "mqueue"), append(burst,
			// file 7 at 5 us: 6 in flight, more than the queue's 2; behind 2 with 2
			// servers it starts when the first in flight completes, at 20, ends at 40
			step{5 * us, wrOf(7, 65536, 8192), 40 * us},
			step{5 * us, fl(7), 90 * us}, // 40 + 50
			// both servers free at 60; the first carries file 7's 20 us, to 80. File
			// 8 still has requests waiting: its next keeps its place after its own,
			// on the other server, 60-80
			step{10 * us, wrOf(8, 49152, 8192), 80 * us},
			// no file never passes: both servers are free at 80
			step{10 * us, wrOf(0, 57344, 8192), 100 * us},
		))
	})
	t.Run("without a bound it waits for the whole backlog", func(t *testing.T) {
		runSteps(t, build(t, r, "mconst"), append(burst,
			step{5 * us, wrOf(7, 65536, 8192), 80 * us}, // the first server frees at 60
			step{5 * us, fl(7), 130 * us},
		))
	})
}

func TestNth(t *testing.T) {
	rng := splitmix64(1)
	for n := 1; n <= 60; n++ {
		xs := make([]time.Duration, n)
		for i := range xs {
			xs[i] = time.Duration(rng.next() % 20) // with repeats
		}
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		for k := range n {
			if got := nth(slices.Clone(xs), k); got != sorted[k] {
				t.Fatalf("nth(%v, %d) = %v, want %v", xs, k, got, sorted[k])
			}
		}
	}
}

// Times in the split and channel tests: mconst and msplit write 20 us and read 10 us on
// two shared servers, and move the bytes beyond 8 KiB at 500 MB/s (writes) and 1000
// MB/s (reads). msplit also splits at 64 KiB and holds 2 requests in the queue.
const (
	write64KiB = 114688 * time.Nanosecond  // 57344 bytes at 500 MB/s
	read64KiB  = 57344 * time.Nanosecond   // at 1000 MB/s
	read36KiB  = 28672 * time.Nanosecond   // 36 KiB - 8 KiB at 1000 MB/s
	write1MiB  = 2080768 * time.Nanosecond // 1040384 bytes at 500 MB/s
	read1MiB   = 1040384 * time.Nanosecond // at 1000 MB/s
	write256   = 507904 * time.Nanosecond  // 256 KiB - 8 KiB in one request at 500 MB/s
)

func TestMeasuredSplit(t *testing.T) {
	r := measuredRegistry(t)
	t.Run("a write larger than max_request_kib is that many requests", func(t *testing.T) {
		// 256 KiB at 64 KiB: 4 parts at once. The first two start on the two servers
		// at 0; their latencies end at 20 us and their transfers follow each other on
		// the channel; parts 3 and 4 take the servers as they free and wait for the
		// channel: 20 us + 4 transfers
		m := build(t, r, "msplit")
		runSteps(t, m, []step{{0, wr(0, 256<<10), 20*us + 4*write64KiB}})
		// a 100 KiB read at 1 ms, the device idle: 64 and 36 KiB, the second's
		// transfer after the first's
		runSteps(t, m, []step{{ms, rd(0, 100<<10), ms + 10*us + read64KiB + read36KiB}})
		st := m.Stats()
		if st.Writes != 4 || st.WriteBytes != 256<<10 || st.Reads != 2 || st.ReadBytes != 100<<10 {
			t.Errorf("counters %+v, want 4 writes of 256 KiB and 2 reads of 100 KiB", st)
		}
	})
	t.Run("without max_request_kib nothing is split", func(t *testing.T) {
		m := build(t, r, "mconst")
		runSteps(t, m, []step{{0, wr(0, 256<<10), 20*us + write256}})
		if st := m.Stats(); st.Writes != 1 || st.WriteBytes != 256<<10 {
			t.Errorf("counters %+v, want 1 write of 256 KiB", st)
		}
	})
	t.Run("a write of at most max_request_kib is one request", func(t *testing.T) {
		m := build(t, r, "msplit")
		runSteps(t, m, []step{{0, wr(0, 64<<10), 20*us + write64KiB}})
		if st := m.Stats(); st.Writes != 1 {
			t.Errorf("%d writes, want 1", st.Writes)
		}
	})
}

func TestMeasuredTransferChannel(t *testing.T) {
	r := measuredRegistry(t)
	t.Run("one 1 MiB write at a time is what it was", func(t *testing.T) {
		runSteps(t, build(t, r, "mconst"), []step{
			{0, wr(0, 1<<20), 20*us + write1MiB},
			{20*us + write1MiB, wr(1<<20, 1<<20), 2 * (20*us + write1MiB)},
		})
	})
	t.Run("two 1 MiB writes at once take twice one", func(t *testing.T) {
		// two servers, but one channel: the second's latency ends at 20 us, its bytes
		// wait for the first's (without the channel both would end at 20 us + 1 MiB)
		runSteps(t, build(t, r, "mconst"), []step{
			{0, wr(0, 1<<20), 20*us + write1MiB},
			{0, wr(1<<20, 1<<20), 20*us + 2*write1MiB},
		})
	})
	t.Run("shared queues share the channel, separate ones do not", func(t *testing.T) {
		runSteps(t, build(t, r, "mconst"), []step{
			{0, rd(0, 1<<20), 10*us + read1MiB},
			{0, wr(0, 1<<20), 10*us + read1MiB + write1MiB},
		})
		runSteps(t, build(t, r, "msep"), []step{
			{0, rd(0, 1<<20), 10*us + read1MiB},
			{0, wr(0, 1<<20), 20*us + write1MiB},
		})
	})
	t.Run("requests of at most the block never wait for the channel", func(t *testing.T) {
		// the completions the model gave before the channel: the 8 KiB reads take the
		// free server (10 us), then the first to free again (10 + 10 us), while the
		// 1 MiB read holds the channel until 10 us + 1 MiB
		m := build(t, r, "mconst")
		runSteps(t, m, []step{
			{0, rd(0, 1<<20), 10*us + read1MiB},
			{0, rd(1<<20, 8192), 10 * us},
			{0, rd(2<<20, 8192), 20 * us},
			{25 * us, wr(3<<20, 8192), 45 * us},
		})
		if ch := m.(*Measured).pools[0].channel; ch != 10*us+read1MiB {
			t.Errorf("channel free at %v, want %v (the 1 MiB read's end)", ch, 10*us+read1MiB)
		}
	})
}

// msplit's queue holds 2 requests: a write of another file submitted behind a split
// write's 8 parts starts when the first part in flight completes (queue 2 + 1 - 2
// servers), as it would behind 8 requests submitted one by one.
func TestMeasuredSplitQueue(t *testing.T) {
	r := measuredRegistry(t)
	// 512 KiB of file 8 at 0: parts on alternate servers, each latency ending before
	// the channel frees, so the parts end 20 us + 1, 2, ..., 8 transfers; the first
	// at 134.688 us
	first := 20*us + write64KiB
	big := step{0, wrOf(8, 0, 512<<10), 20*us + 8*write64KiB}
	t.Run("a small write passes to the queue's end", func(t *testing.T) {
		runSteps(t, build(t, r, "msplit"), []step{big,
			{5 * us, wrOf(7, 1<<20, 8192), first + 20*us},
			{5 * us, fl(7), first + 20*us + 50*us},
		})
	})
	t.Run("without a queue bound it waits for the backlog", func(t *testing.T) {
		// the same device without queue_depth: the first server to free carries
		// part 7, which ends at 20 us + 7 transfers
		m := NewMeasured("msplit", measuredProfileWith(t, "msplit", "queue_depth: 2\n", ""))
		runSteps(t, m, []step{big,
			{5 * us, wrOf(7, 1<<20, 8192), 20*us + 7*write64KiB + 20*us},
		})
	})
	t.Run("a large write that passes moves the channel back", func(t *testing.T) {
		runSteps(t, build(t, r, "msplit"), []step{big,
			// file 9's 64 KiB passes to 134.688 us; its bytes go at its latency's end
			{5 * us, wrOf(9, 2<<20, 64<<10), first + 20*us + write64KiB},
			// no file never passes: the second server frees at 20 us + 8 transfers
			{10 * us, wrOf(0, 3<<20, 8192), 20*us + 8*write64KiB + 20*us},
			// both servers free at 957.504 us; the channel, 20 us + 8 transfers plus
			// file 9's, is later than this write's latency end
			{10 * us, wrOf(0, 4<<20, 64<<10), 20*us + 8*write64KiB + write64KiB + write64KiB},
		})
	})
}

// measuredProfileWith is testdata/measured.yaml's profile name with from replaced by to.
func measuredProfileWith(t *testing.T, name, from, to string) *Profile {
	t.Helper()
	text, err := os.ReadFile("testdata/measured.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(text), "---") {
		if !strings.Contains(doc, "name: "+name+"\n") {
			continue
		}
		if !strings.Contains(doc, from) {
			t.Fatalf("profile %s has no %q", name, from)
		}
		ps, err := ParseProfiles("m.yaml", []byte(strings.Replace(doc, from, to, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return ps[0]
	}
	t.Fatalf("testdata/measured.yaml has no profile %s", name)
	return nil
}
