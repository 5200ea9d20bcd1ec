package device

import (
	"math"
	"math/bits"
	"time"
)

// Limit puts provisioned caps and a network round trip in front of a device, as a cloud
// block volume has them (docs/cloud.md, "The model"): an IOPS cap and a throughput cap,
// each a token bucket refilled at its rate per second, the I/O size that counts as one
// operation, sequential requests merged into one operation, and burst credits where the
// volume type has them. The mechanism is the same for every provider; the cloud class
// (cloud.go) derives its figures from a volume type's rules, and limit(...) gives them
// by hand, for any device: limit(nvme,iops=3000,throughput=125MiB/s).
//
// A request waits until both buckets hold its tokens (a request may take a bucket into
// debt: a 1 MiB request on a 256 KiB bucket does not wait for four refills before it
// starts, the next one does), then crosses the network (half the round trip), is served
// by the inner device, and crosses back. Each bucket holds bucket_ms of its rate, so a
// queue's requests can start together without changing the rate over a second.
//
//   - Operations: a request of n bytes counts ceil(n / io_size) operations; with
//     merge_sequential, a request that starts where the previous one ended (and is at
//     least merge_min_kib) continues its operation, and counts only the operations it
//     begins. io_size 0 counts every request as one operation.
//   - Throughput: a request's bytes, or with charge_whole_io its operations times
//     io_size (an HDD-backed volume counts a small random read as a whole 1 MiB I/O).
//   - Burst credits: with a burst rate and a credit bucket, the cap is the burst rate
//     while the bucket holds credits and the baseline otherwise; credits accrue at the
//     baseline rate up to the bucket's size and are spent by every operation or byte.
//     The bucket starts full.
//   - A flush costs the round trip and the inner device's flush, and no tokens.
//
// Not modelled: a provider's latency variation, the instance's own EBS bandwidth, and
// reads and writes with separate caps (every provider modelled here counts them
// together).
type Limit struct {
	counters
	name  string
	power Power
	inner Model

	halfNet, restNet time.Duration
	ioSize, mergeMin int64
	merge, wholeIO   bool
	ops, bytes       shaper
	opsCredit        *credit
	bytesCredit      *credit
	// lastEnd is the end offset of the previous read or write; run the bytes of the
	// sequential run it ended, for merging.
	lastEnd, run int64
	capacity     int64
	cfg          LimitConfig
}

// LimitConfig are a Limit's figures, in base units.
type LimitConfig struct {
	IOPS    float64 // operations a second; 0: no cap
	BytesPS float64 // bytes a second; 0: no cap
	// IOSize counts as one operation (0: a request is one operation); MergeMin is the
	// least size of a request that merge continues.
	IOSize, MergeMin int64
	Merge, WholeIO   bool
	Bucket           time.Duration // depth of each bucket, in time at its rate
	Network          time.Duration // round trip added to every request
	// BurstIOPS and BurstBytesPS are the caps while credits last (0: no burst);
	// CreditOps and CreditBytes the credit buckets' sizes.
	BurstIOPS, BurstBytesPS float64
	CreditOps, CreditBytes  float64
	// Capacity is the volume's size (0: the inner device's).
	Capacity int64
}

func limitClass() *class {
	return &class{
		name:      "limit",
		help:      "provisioned IOPS and throughput caps (token buckets) and a network round trip around a device",
		syntax:    "limit(INNER[,iops=3000,throughput=125MiB/s,io_size=256KiB,merge_sequential=on,latency=200us,bucket=1ms])",
		composite: true,
		fields: []field{
			{key: "inner", kind: kindSpec, required: true, help: "the device behind the caps"},
			{key: "iops", help: "operations a second (0: no cap)"},
			{key: "throughput_mbps", help: "MB/s (0: no cap); MiB/s with a unit: throughput=125MiB/s"},
			{key: "io_size_kib", help: "the I/O size that counts as one operation (0: each request is one)"},
			{key: "merge_sequential", kind: kindBool, help: "a request that continues the previous one continues its operation"},
			{key: "merge_min_kib", help: "requests smaller than this are never merged"},
			{key: "charge_whole_io", kind: kindBool, help: "throughput is charged per operation at io_size (HDD-backed volumes)"},
			{key: "latency_us", help: "network round trip added to every request"},
			{key: "bucket_ms", above: true, def: Figure{Value: 1, Source: bucketSource}, help: "depth of each bucket, in time at its rate"},
			{key: "burst_iops", help: "operations a second while I/O credits last (0: no burst)"},
			{key: "burst_throughput_mbps", help: "MB/s while throughput credits last (0: no burst)"},
			{key: "credit_ios", help: "size of the I/O credit bucket, in operations"},
			{key: "credit_mib", help: "size of the throughput credit bucket, in MiB"},
		},
		check: checkLimit,
		build: func(b *builder, p *Profile, name string) (Model, error) {
			inner, err := b.build(p.Text("inner"))
			if err != nil {
				return nil, err
			}
			return NewLimit(name, p.Power(), inner, LimitConfig{
				IOPS: p.Num("iops"), BytesPS: p.Num("throughput_mbps") * 1e6,
				IOSize: kib(p.Num("io_size_kib")), MergeMin: kib(p.Num("merge_min_kib")),
				Merge: p.Bool("merge_sequential"), WholeIO: p.Bool("charge_whole_io"),
				Bucket: msDur(p.Num("bucket_ms")), Network: usDur(p.Num("latency_us")),
				BurstIOPS: p.Num("burst_iops"), BurstBytesPS: p.Num("burst_throughput_mbps") * 1e6,
				CreditOps: p.Num("credit_ios"), CreditBytes: p.Num("credit_mib") * (1 << 20),
			}), nil
		},
	}
}

// bucketSource says why a bucket holds 1 ms of its rate.
const bucketSource = "assumption: providers state their caps per second, not how they smooth within the second; " +
	"1 ms of tokens lets a few queued requests start together and adds 0.1% to a second's count"

// checkLimit refuses a burst rate without its credit bucket (or the reverse), a burst
// below the baseline, and charge_whole_io without io_size.
func checkLimit(p *Profile) error {
	pairs := []struct{ rate, bucket, base string }{
		{"burst_iops", "credit_ios", "iops"},
		{"burst_throughput_mbps", "credit_mib", "throughput_mbps"},
	}
	for _, pr := range pairs {
		if (p.Num(pr.rate) > 0) != (p.Num(pr.bucket) > 0) {
			return fmtErr(p, pr.rate, "a burst needs both %s and %s (the rate while credits last and the credit bucket): give both or neither", pr.rate, pr.bucket)
		}
		if p.Num(pr.rate) > 0 && p.Num(pr.rate) < p.Num(pr.base) {
			return fmtErr(p, pr.rate, "field %s (%v) is below the baseline %s (%v): a burst is faster than the baseline", pr.rate, p.Num(pr.rate), pr.base, p.Num(pr.base))
		}
	}
	if p.Bool("charge_whole_io") && p.Num("io_size_kib") == 0 {
		return fmtErr(p, "charge_whole_io", "charge_whole_io charges each operation at io_size: give io_size_kib too")
	}
	return nil
}

func kib(v float64) int64           { return int64(math.Round(v * 1024)) }
func usDur(v float64) time.Duration { return time.Duration(math.Round(v * 1e3)) }
func msDur(v float64) time.Duration { return time.Duration(math.Round(v * 1e6)) }
func perSecond(v float64) int64     { return int64(math.Round(v)) }
func creditUnits(v float64) int64   { return int64(math.Round(v)) * creditScale }
func (l *Limit) Name() string       { return l.name }
func (l *Limit) Power() Power       { return l.power }
func (l *Limit) Members() []Model   { return []Model{l.inner} }
func (l *Limit) Capacity() int64    { return l.capacity }

// NewLimit builds a Limit around inner.
func NewLimit(name string, power Power, inner Model, c LimitConfig) *Limit {
	l := &Limit{
		name: name, power: power, inner: inner,
		halfNet: c.Network / 2, restNet: c.Network - c.Network/2,
		ioSize: c.IOSize, mergeMin: c.MergeMin, merge: c.Merge, wholeIO: c.WholeIO,
		ops:      shaper{rate: perSecond(c.IOPS), tol: c.Bucket},
		bytes:    shaper{rate: perSecond(c.BytesPS), tol: c.Bucket},
		lastEnd:  -1,
		capacity: c.Capacity,
		cfg:      c,
	}
	if l.capacity <= 0 {
		l.capacity = capacityOf(inner)
	}
	if c.BurstIOPS > 0 && c.CreditOps > 0 {
		l.opsCredit = newCredit(perSecond(c.IOPS), perSecond(c.BurstIOPS), creditUnits(c.CreditOps))
	}
	if c.BurstBytesPS > 0 && c.CreditBytes > 0 {
		l.bytesCredit = newCredit(perSecond(c.BytesPS), perSecond(c.BurstBytesPS), creditUnits(c.CreditBytes))
	}
	return l
}

// Submit implements Model.
func (l *Limit) Submit(at time.Duration, r Request) time.Duration {
	l.count(r)
	l.busy.advance(at)
	start := at
	if r.Op != OpFlush {
		ops, bytes := l.charge(r)
		l.ops.setRate(l.opsCredit.rateAt(at, l.ops.rate), at)
		l.bytes.setRate(l.bytesCredit.rateAt(at, l.bytes.rate), at)
		start = max(at, l.ops.ready(), l.bytes.ready())
		l.ops.take(start, ops)
		l.bytes.take(start, bytes)
		l.opsCredit.spend(start, ops)
		l.bytesCredit.spend(start, bytes)
	}
	end := l.inner.Submit(start+l.halfNet, r) + l.restNet
	l.busy.add(at, end)
	return end
}

// charge is the operations and the bytes a read or write counts against the caps.
func (l *Limit) charge(r Request) (ops, bytes int64) {
	size := max(r.Size, 0)
	ops = 1
	if l.ioSize > 0 {
		seq := l.merge && r.Offset == l.lastEnd && size >= l.mergeMin
		if seq {
			before := ceilDiv(l.run, l.ioSize)
			l.run += size
			ops = ceilDiv(l.run, l.ioSize) - before
		} else {
			l.run = size
			ops = max(ceilDiv(size, l.ioSize), 1)
		}
	}
	l.lastEnd = r.Offset + size
	bytes = size
	if l.wholeIO {
		bytes = ops * l.ioSize
	}
	return ops, bytes
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// shaper is one token bucket, kept as its theoretical arrival time (the generic cell
// rate algorithm): tokens are used up until tat, base + count units at rate; a request
// may start once tat is within tol of it. Counting from a base, rather than adding each
// request's share to a clock, keeps the rate exact over any number of requests.
type shaper struct {
	rate  int64 // units a second; 0: no cap
	tol   time.Duration
	base  time.Duration
	count int64
}

func (s *shaper) tat() time.Duration { return s.base + xfer(s.count, s.rate) }

// ready is the earliest time the bucket lets a request start.
func (s *shaper) ready() time.Duration {
	if s.rate <= 0 {
		return 0
	}
	return s.tat() - s.tol
}

// take books n units for a request that starts at start: a bucket that refilled
// completely since its last request starts counting again from start.
func (s *shaper) take(start time.Duration, n int64) {
	if s.rate <= 0 {
		return
	}
	if t := s.tat(); t < start {
		s.base, s.count = start, 0
	}
	s.count += n
}

// setRate changes the refill rate from now on, keeping the tokens already owed.
func (s *shaper) setRate(rate int64, now time.Duration) {
	if rate == s.rate || s.rate <= 0 {
		return
	}
	s.base, s.count, s.rate = max(s.tat(), now), 0, rate
}

// creditScale is the credits' resolution: a unit (an operation, a byte) is creditScale
// credits, so that a slow baseline earns a fraction of one between two requests.
const creditScale = 100_000

// credit is a burst bucket: it earns baseline units a second up to its size and spends
// what the requests use; the cap is burst while it holds credits. A nil credit is a
// volume without a burst: its rate stays what it is.
type credit struct {
	baseline, burst int64
	size, bal       int64 // in credits (units x creditScale)
	last            time.Duration
}

func newCredit(baseline, burst, size int64) *credit {
	return &credit{baseline: baseline, burst: burst, size: size, bal: size}
}

func (c *credit) accrue(now time.Duration) {
	if now <= c.last {
		return
	}
	earned := mulDiv(int64(now-c.last), c.baseline, int64(time.Second)/creditScale)
	c.bal = min(c.size, satAdd(c.bal, earned))
	c.last = now
}

// rateAt is the cap at now: the burst while credits remain, else the baseline.
func (c *credit) rateAt(now time.Duration, current int64) int64 {
	if c == nil {
		return current
	}
	c.accrue(now)
	if c.bal > 0 {
		return c.burst
	}
	return c.baseline
}

func (c *credit) spend(now time.Duration, units int64) {
	if c == nil {
		return
	}
	c.accrue(now)
	c.bal -= units * creditScale
}

// mulDiv is a*b/c for non-negative a, b and positive c in 128-bit arithmetic,
// saturating at the largest int64.
func mulDiv(a, b, c int64) int64 {
	if a <= 0 || b <= 0 || c <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}

func satAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
