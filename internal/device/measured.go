package device

import (
	"container/heap"
	"fmt"
	"math"
	"time"
)

// Measured is a device known only by what probes measured on it (`tierbench device
// fit`, docs/devices.md "Device twins"): no geometry, no dies, just the distributions
// and rates a program sees through a file system with O_DIRECT. It stands for devices
// whose insides cannot be seen (a virtual machine's disk, a cloud volume, a throttled
// volume) and for twins of real ones.
//
// A read or write is served by one of K parallel servers. Its service time is drawn
// from the measured latency distribution of its operation at queue depth 1 (the
// quantiles p1 ... p99.9 and the mean of the slowest 0.1%), plus the bytes beyond the
// probes' block size at the measured transfer rate (on one channel, below). How many
// requests the device serves at once comes from Little's law: a probe's rate at depth
// d times the mean latency at depth 1 is x(d), at least 1. Probes at depth 32
// (read_iops, write_iops) and, when the fit ran them, 128 (read_iops_qd128;
// write_iops_qd128, which the fit takes from a writeback that fills the block layer's
// queue) give the curve:
// x(n) with n requests in flight is x(32) up to 32, a straight line from x(32) to
// x(128) between them, and x(128) beyond (x(32) throughout without the deeper probe).
// K is the largest x rounded up. A request submitted with n in flight (itself
// included) takes its drawn time if n is at most x(n) rounded up, else min(n, K)/x(n)
// times it, so that the busy servers pass exactly x(n) requests per mean latency. One
// request alone sees the measured distribution, 32 at once the depth-32 IOPS, 128 at
// once the depth-128 IOPS. The deeper probe is there because a block layer queues
// more than 32: a page cache's writeback of 4096 scattered pages passed 121-139
// thousand writes a second on a virtio disk whose depth-32 probe passed 56 thousand
// (docs/devices.md, "The flush's scope, measured"). Reads and writes share one set of
// servers or have one each (queues), as the mixed probe decided.
//
// A flush of a file waits for that file's writes submitted before it, not for other
// files', then takes a delay drawn from the flush distribution (fdatasync after an
// O_DIRECT overwrite: what the device's cache flush costs, with no file system journal
// to write). fdatasync writes back and waits for its own file's pages, and the cache
// flush after them does not wait for requests still queued. A flush of file 0 (no
// file: a whole-device flush) waits for every write. Not modelled: the journal commit
// an fdatasync owes when its file's size or blocks changed (the fit's files are
// preallocated and overwritten, which commits nothing to ext4's journal).
//
// The host's block layer holds at most queue_depth requests in the device's queue
// (its nr_requests); a longer backlog waits in the host, and a request of another
// file gets a place among the queue's rather than behind the whole backlog (passes).
// On a virtio disk, commits (an 8 KiB write and fdatasync) kept going at about 3 ms
// each while another file's 4096 scattered pages were being written back; a model
// whose flush waited for every earlier write, and whose requests waited for every
// request before them, made the one commit wait for the whole writeback
// (docs/devices.md, "The flush's scope, measured").
//
// The host's block layer sends the device no request larger than max_request_kib
// (its max_sectors_kb): a larger read or write becomes ceil(size/max) requests,
// submitted at once in ascending offsets, each counted as a request (as the kernel's
// diskstats count them); the caller's completes with its last part. And the device
// has one media rate, the one the 1 MiB probes at depth 1 measured: the bytes beyond
// the block do not stream on K servers at once. A request's latency runs on its
// server; its transfer then takes the transfer channel from the later of the
// latency's end and the channel's being free, and the server stays busy until the
// transfer ends. There is one channel per set of servers rather than per device:
// queues is the mixed probe's choice of whether reads and writes share one throughput
// limit, and the read and write rates were each measured alone, so nothing measured
// says that separate queues' transfers slow each other. Only the latency part is
// stretched by x(n) (the channel already bounds the transfers). A request of at most
// the block never touches the channel, so 8 KiB requests at any depth, and one large
// request alone, take what they took without it. On a virtio disk a 1 GiB writeback
// went as 256 requests of 4 MiB that filled the block layer's queue, and another
// file's commits waited 251-358 ms behind them; as one request on one server it let
// them through (docs/devices.md, "The flush's scope, measured").
//
// The draws come from a fixed-seed generator advanced once per request, so the same
// requests always get the same completions (no clock, no random source). What is not
// modelled: dependence of latency on the offset or on the distance between requests
// (the probes are uniform random), a cache in the device that a small working set
// would hit, and how the device's concurrency grows between the probes' depths (a
// straight line is assumed).
type Measured struct {
	counters
	name     string
	power    Power
	capacity int64
	block    int64

	lat   [3]quantiles  // by Op
	rate  [2]int64      // bytes per second beyond block, by Op
	curve [2]depthCurve // requests served at once by requests in flight, by Op
	pools []*servers
	// pool is the index in pools of each operation's servers
	pool [2]int
	// queue is how many requests the host's block layer holds ahead of a newcomer
	// (0: no bound)
	queue int
	// split is the largest request the block layer sends the device, in bytes
	// (0: none is split)
	split int64
	// files are what each file has on the device; anyWrite is when the latest write
	// of all completes
	files    map[uint64]fileState
	anyWrite time.Duration
	draws    splitmix64
}

// servers are one set of K servers: when each is next free, the completions of the
// requests submitted to them that were in flight at the latest submission, and when
// their transfer channel is next free.
type servers struct {
	free     []time.Duration
	inflight DurationHeap
	scratch  []time.Duration // for passes
	// channel is when the servers' one transfer channel is next free
	channel time.Duration
}

// The queue depths of the fit's IOPS probes (docs/devices.md, "Device twins"): 32,
// the depth vendors quote IOPS at, and 128, nearer what the block layer queues.
const (
	IOPSDepth     = 32
	DeepIOPSDepth = 128
)

// depthCurve is x(n), how many requests the device serves at once with n in flight:
// x32 up to IOPSDepth, a straight line to x128 at DeepIOPSDepth, x128 beyond.
type depthCurve struct{ x32, x128 float64 }

func (c depthCurve) at(n int) float64 {
	switch {
	case n <= IOPSDepth:
		return c.x32
	case n >= DeepIOPSDepth:
		return c.x128
	}
	f := float64(n-IOPSDepth) / float64(DeepIOPSDepth-IOPSDepth)
	return c.x32 + f*(c.x128-c.x32)
}

func (c depthCurve) most() float64 { return max(c.x32, c.x128) }

// prunedFiles is how many files' last writes are kept before those already complete
// are forgotten (a flush submitted later cannot wait for them).
const prunedFiles = 1024

// maxMeasuredServers bounds K: a device that serves more requests at once than this is
// beyond what one host's queue depth can tell apart.
const maxMeasuredServers = 4096

// measuredQuantiles are the probabilities of the quantile fields, in field order.
var measuredQuantiles = []struct {
	suffix string
	p      float64
}{{"p1", 0.01}, {"p5", 0.05}, {"p10", 0.10}, {"p25", 0.25}, {"p50", 0.50}, {"p75", 0.75},
	{"p90", 0.90}, {"p95", 0.95}, {"p99", 0.99}, {"p999", 0.999}}

// measuredOps are the operations with latency fields, by Op.
var measuredOps = []string{"read", "write", "flush"}

// QuantileKey is the field of operation op's latency quantile suffix ("read", "p50"
// -> read_p50_us).
func QuantileKey(op, suffix string) string { return op + "_" + suffix + "_us" }

// TailKey is the field of the mean of operation op's slowest 0.1%.
func TailKey(op string) string { return op + "_tail_us" }

// MeanKey is the field of operation op's mean latency.
func MeanKey(op string) string { return op + "_mean_us" }

// QuantileSuffixes lists the quantile fields' suffixes and probabilities, for the fit.
func QuantileSuffixes() (suffixes []string, ps []float64) {
	for _, q := range measuredQuantiles {
		suffixes = append(suffixes, q.suffix)
		ps = append(ps, q.p)
	}
	return suffixes, ps
}

func measuredClass() *class {
	var fields []field
	fields = append(fields, field{key: "capacity_gb", required: true, above: true, help: "capacity in GB (10^9 bytes)"})
	fields = append(fields, field{key: "block_kib", min: 0.5, def: Figure{Value: 8}, help: "request size the latency quantiles were measured at"})
	for _, op := range measuredOps {
		for _, q := range measuredQuantiles {
			fields = append(fields, field{key: QuantileKey(op, q.suffix), required: true,
				help: fmt.Sprintf("%s latency at queue depth 1, %g%% quantile", op, q.p*100)})
		}
		fields = append(fields, field{key: TailKey(op), required: true,
			help: fmt.Sprintf("mean %s latency of the slowest 0.1%%", op)})
		// A flush's mean may be 0: the fit takes it as the write-and-fdatasync pairs'
		// mean less the write's, which is 0 (clamped) on a device whose fdatasync after
		// an overwrite costs nothing measurable; the distribution is then flat at 0.
		// A read's or write's mean is what the servers' count divides by: above 0.
		fields = append(fields, field{key: MeanKey(op), required: true, above: op != "flush",
			help: fmt.Sprintf("mean %s latency at queue depth 1", op)})
	}
	fields = append(fields,
		field{key: "read_iops", required: true, above: true, help: "most reads a second (queue depth 32)"},
		field{key: "write_iops", required: true, above: true, help: "most writes a second (queue depth 32)"},
		field{key: "queue_depth", kind: kindInteger, help: "requests the host's block layer holds in the device's queue (nr_requests); 0: no bound, a request waits for every one submitted before it"},
		field{key: "max_request_kib", kind: kindInteger, help: "largest request the host's block layer sends the device, KiB (max_sectors_kb): a larger read or write is split into requests of this size; 0: none is split"},
		field{key: "read_iops_qd128", help: "reads a second at queue depth 128 (0: not measured; the depth-32 rate holds beyond 32)"},
		field{key: "write_iops_qd128", help: "writes a second at queue depth 128 or more (the fit: a writeback filling the block layer's queue; 0: not measured, the depth-32 rate holds beyond 32)"},
		field{key: "read_mbps", required: true, above: true, help: "transfer rate of read bytes beyond block_kib, MB/s"},
		field{key: "write_mbps", required: true, above: true, help: "transfer rate of written bytes beyond block_kib, MB/s"},
		field{key: "queues", kind: kindChoice, choices: []string{"shared", "separate"}, def: Figure{Text: "shared"},
			help: "reads and writes share one throughput limit, or each has its own"},
	)
	return &class{
		name:   "measured",
		help:   "a device known by measurements: latency distributions, IOPS, transfer rates, flush (device fit)",
		fields: fields,
		check: func(p *Profile) error {
			for _, op := range measuredOps {
				prev := ""
				for _, q := range measuredQuantiles {
					key := QuantileKey(op, q.suffix)
					if prev != "" {
						if err := p.order(prev, key); err != nil {
							return err
						}
					}
					prev = key
				}
				if err := p.order(prev, TailKey(op)); err != nil {
					return err
				}
				if err := p.order(QuantileKey(op, measuredQuantiles[0].suffix), MeanKey(op)); err != nil {
					return err
				}
				if err := p.order(MeanKey(op), TailKey(op)); err != nil {
					return err
				}
			}
			return nil
		},
		build: func(_ *builder, p *Profile, name string) (Model, error) { return NewMeasured(name, p), nil },
	}
}

func init() { registerClass(measuredClass()) }

// NewMeasured builds a Measured device from a checked measured profile.
func NewMeasured(name string, p *Profile) *Measured {
	m := &Measured{
		name:     name,
		power:    p.Power(),
		capacity: int64(math.Round(p.Num("capacity_gb") * 1e9)),
		block:    max(1, int64(math.Round(p.Num("block_kib")*1024))),
		draws:    splitmix64(0x7477696e), // "twin"
		files:    map[uint64]fileState{},
		queue:    int(p.Num("queue_depth")),
		split:    int64(p.Num("max_request_kib")) * 1024,
	}
	for i, op := range measuredOps {
		m.lat[i] = quantilesOf(p, op)
	}
	for i, op := range measuredOps[:2] {
		m.rate[i] = int64(math.Round(p.Num(op+"_mbps") * 1e6))
		c := depthCurve{x32: m.Concurrency(Op(i), p.Num(op+"_iops"))}
		c.x128 = c.x32
		if deep := p.Num(op + "_iops_qd128"); deep > 0 {
			c.x128 = m.Concurrency(Op(i), deep)
		}
		m.curve[i] = c
	}
	newServers := func(x float64) *servers {
		return &servers{free: make([]time.Duration, int(min(math.Ceil(x), maxMeasuredServers)))}
	}
	if p.Text("queues") == "separate" {
		for i := range m.curve {
			m.pools = append(m.pools, newServers(m.curve[i].most()))
			m.pool[i] = i
		}
	} else {
		m.pools = []*servers{newServers(max(m.curve[0].most(), m.curve[1].most()))}
	}
	return m
}

// Concurrency is how many requests of op the device serves at once, by Little's law
// from the rate it reached at depth (iops) and its mean latency alone: at least 1.
func (m *Measured) Concurrency(op Op, iops float64) float64 {
	return max(1, iops*m.lat[op].Mean().Seconds())
}

// Servers is K for each operation (reads, writes): the number of its servers.
func (m *Measured) Servers() [2]int {
	return [2]int{len(m.pools[m.pool[OpRead]].free), len(m.pools[m.pool[OpWrite]].free)}
}

func (m *Measured) Name() string    { return m.name }
func (m *Measured) Power() Power    { return m.power }
func (m *Measured) Capacity() int64 { return m.capacity }

// Submit implements Model.
func (m *Measured) Submit(at time.Duration, r Request) time.Duration {
	m.busy.advance(at)
	size := max(r.Size, 0)
	if r.Op == OpFlush || m.split == 0 || size <= m.split {
		m.count(r)
		return m.serve(at, r)
	}
	// the block layer's parts, all submitted now, in order; each is a request of its
	// own, as the kernel's diskstats count them
	done := at
	for off := int64(0); off < size; off += m.split {
		part := r
		part.Offset, part.Size = r.Offset+off, min(m.split, size-off)
		m.count(part)
		done = max(done, m.serve(at, part))
	}
	return done
}

// serve runs one request no larger than the device takes (a flush, or a read or
// write of at most split bytes) and returns its completion.
func (m *Measured) serve(at time.Duration, r Request) time.Duration {
	u := float64(m.draws.next()>>11) / (1 << 53)
	if r.Op == OpFlush {
		start := max(at, m.anyWrite)
		if r.File != 0 {
			start = max(at, m.files[r.File].write)
		}
		done := start + m.lat[OpFlush].at(u)
		m.busy.add(start, done)
		return done
	}
	op := r.Op
	pool := m.pools[m.pool[op]]
	for len(pool.inflight) > 0 && pool.inflight[0] <= at {
		heap.Pop(&pool.inflight)
	}
	n := len(pool.inflight) + 1
	i := 0
	for j, t := range pool.free {
		if t < pool.free[i] {
			i = j
		}
	}
	start := max(at, pool.free[i])
	latency := m.lat[op].at(u)
	if x := m.curve[op].at(n); float64(n) > math.Ceil(x) {
		busy := min(n, len(pool.free))
		latency = time.Duration(math.Round(float64(latency) * float64(busy) / x))
	}
	// the bytes beyond the block, on the pool's one transfer channel (nothing for a
	// request of at most the block: it never waits for the channel)
	move := xfer(max(r.Size, 0)-m.block, m.rate[op])
	var done time.Duration
	if passed, ok := m.passes(at, r.File, pool, start); ok {
		// it runs in the place the block layer gave it, its transfer included; the
		// requests it passed are behind it, which the server that frees first and
		// the channel carry from now on
		start = passed
		done = start + latency + move
		pool.free[i] += done - start
		if move > 0 {
			pool.channel = max(pool.channel, start+latency) + move
		}
	} else {
		done = start + latency
		if move > 0 {
			done = max(done, pool.channel) + move
			pool.channel = done
		}
		pool.free[i] = done
	}
	heap.Push(&pool.inflight, done)
	m.note(at, r, start, done)
	m.busy.add(start, done)
	return done
}

// passes is where a request of file submitted at at starts when the block layer
// bounds the queue ahead of it (docs/devices.md, "Device twins"): the host holds at
// most queue requests in the device's queue; a longer backlog waits in the host, and
// a newcomer of another file gets its place among the queue's, where the device's
// first-come order (fifo, the start it would have) puts it behind every request
// submitted before. On a virtio disk, commits kept going at about 3 ms each behind
// another file's writeback of 4096 pages that took 30 ms, where first-come order made
// the one commit wait for all of it. Only a file with nothing of its own still
// waiting passes (its requests keep their order; a writeback's burst does not pass
// itself), and file 0 (no file) never does. With K servers busy, the newcomer behind
// queue requests starts when the (queue+1-K)-th of those in flight completes.
func (m *Measured) passes(at time.Duration, file uint64, pool *servers, fifo time.Duration) (time.Duration, bool) {
	ahead := len(pool.inflight) // the request itself is not among them yet
	if m.queue == 0 || file == 0 || fifo <= at || ahead <= m.queue || m.files[file].start > at {
		return 0, false
	}
	pool.scratch = append(pool.scratch[:0], pool.inflight...)
	k := max(m.queue+1-len(pool.free), 1)
	start := max(at, nth(pool.scratch, k-1))
	return start, start < fifo
}

// nth is the k-th smallest of xs (from 0), which it reorders: quickselect, linear on
// average, as a pass is looked for while thousands may be in flight.
func nth(xs []time.Duration, k int) time.Duration {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		pivot := max(min(xs[lo], xs[mid]), min(max(xs[lo], xs[mid]), xs[hi])) // median of three
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return xs[k]
		}
	}
	return xs[k]
}

// fileState is what a file has on the device: when its latest request starts and
// when its latest write completes.
type fileState struct{ start, write time.Duration }

// note records request r of its file, submitted at at, running from start to done.
func (m *Measured) note(at time.Duration, r Request, start, done time.Duration) {
	if r.Op == OpWrite {
		m.anyWrite = max(m.anyWrite, done)
	}
	if r.File == 0 {
		return
	}
	if len(m.files) >= prunedFiles {
		for f, st := range m.files {
			if st.start <= at && st.write <= at {
				delete(m.files, f)
			}
		}
	}
	st := m.files[r.File]
	st.start = max(st.start, start)
	if r.Op == OpWrite {
		st.write = max(st.write, done)
	}
	m.files[r.File] = st
}

// quantiles is a latency distribution given by its quantiles and its mean: flat below
// the first quantile; between two quantiles a and b, a + (b-a) f^k at the fraction f
// of the way; above the last a ramp whose mean is the tail's measured mean, so the
// slow requests keep their weight. Latency densities fall steeply between quantiles
// (most of the requests between p95 and p99 are near p95), so straight lines (k = 1)
// overstate the mean, by 13% on a virtual disk's reads with six quantiles; k, the same
// for every piece, is solved so that the distribution's mean is the measured mean.
type quantiles struct {
	p    []float64       // probabilities, increasing
	v    []time.Duration // the quantiles
	tail time.Duration   // mean above the last quantile
	k    float64         // bend of the pieces between quantiles
}

// Bounds of k: beyond them the mean cannot be met by bending alone (a profile whose
// mean lies outside what its quantiles allow), and the nearest shape is taken.
const minBend, maxBend = 0.05, 50

func quantilesOf(p *Profile, op string) quantiles {
	us := func(key string) time.Duration { return time.Duration(math.Round(p.Num(key) * 1e3)) }
	var q quantiles
	for _, mq := range measuredQuantiles {
		q.p = append(q.p, mq.p)
		q.v = append(q.v, us(QuantileKey(op, mq.suffix)))
	}
	q.tail = us(TailKey(op))
	q.k = q.bend(float64(us(MeanKey(op))))
	return q
}

// bend solves for k: each piece between quantiles a and b has the mean a + (b-a)/(k+1),
// so the distribution's mean is base + spread/(k+1), with base what it would be were
// every piece at its lower quantile.
func (q quantiles) bend(mean float64) float64 {
	last := len(q.p) - 1
	base := q.p[0]*float64(q.v[0]) + (1-q.p[last])*float64(q.tail)
	var spread float64
	for i := 1; i <= last; i++ {
		w := q.p[i] - q.p[i-1]
		base += w * float64(q.v[i-1])
		spread += w * float64(q.v[i]-q.v[i-1])
	}
	if spread <= 0 || mean <= base {
		return maxBend
	}
	return min(max(spread/(mean-base)-1, minBend), maxBend)
}

// at is the latency at probability u in [0, 1).
func (q quantiles) at(u float64) time.Duration {
	last := len(q.p) - 1
	switch {
	case u <= q.p[0]:
		return q.v[0]
	case u >= q.p[last]:
		// a ramp from v[last] rising to 2 tail - v[last] has the tail's mean
		top := 2*q.tail - q.v[last]
		f := (u - q.p[last]) / (1 - q.p[last])
		return q.v[last] + time.Duration(math.Round(f*float64(top-q.v[last])))
	}
	i := 1
	for u > q.p[i] {
		i++
	}
	f := (u - q.p[i-1]) / (q.p[i] - q.p[i-1])
	return q.v[i-1] + time.Duration(math.Round(math.Pow(f, q.k)*float64(q.v[i]-q.v[i-1])))
}

// Mean is the distribution's mean.
func (q quantiles) Mean() time.Duration {
	last := len(q.p) - 1
	mean := q.p[0]*float64(q.v[0]) + (1-q.p[last])*float64(q.tail)
	for i := 1; i <= last; i++ {
		mean += (q.p[i] - q.p[i-1]) * (float64(q.v[i-1]) + float64(q.v[i]-q.v[i-1])/(q.k+1))
	}
	return time.Duration(math.Round(mean))
}

// MeanLatency is the mean of operation op's latency distribution (at the block size),
// for the fit's comparisons.
func (m *Measured) MeanLatency(op Op) time.Duration { return m.lat[op].Mean() }

// DurationHeap is a min-heap of times (container/heap): the completions of requests
// in flight, earliest first, for the models and for the fit's queue-depth probes.
type DurationHeap []time.Duration

func (h DurationHeap) Len() int           { return len(h) }
func (h DurationHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h DurationHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *DurationHeap) Push(x any)        { *h = append(*h, x.(time.Duration)) }
func (h *DurationHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
