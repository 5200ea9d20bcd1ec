package emulator

import (
	"encoding/json"
	"math/bits"
	"time"
)

// Histogram is a log-linear latency histogram in nanoseconds: 16 sub-buckets per power
// of two, so any recorded value is known to within 1/16 (6%) of itself, from 1 ns to
// the largest duration, in a fixed 1,000 counters. Why not HdrHistogram: this one has
// to cross a process boundary as JSON every second and be merged and rebuilt offline;
// a sparse list of (lower bound, count) pairs does that with no dependency, and 6% is
// well inside what a device model claims.
type Histogram struct {
	counts     [histBuckets]int64
	n          int64
	sum        int64
	minV, maxV int64
}

const (
	histSub     = 16
	histBuckets = (64 - 4) * histSub
)

func histIndex(v int64) int {
	if v < histSub {
		return int(max(v, 0))
	}
	exp := bits.Len64(uint64(v)) - 5 // keep the top 5 bits: 16..31
	return (exp+1)*histSub + int(uint64(v)>>exp) - histSub
}

// histLower is the smallest value that falls in bucket i.
func histLower(i int) int64 {
	if i < histSub {
		return int64(i)
	}
	exp := i/histSub - 1
	return int64(i%histSub+histSub) << exp
}

// Record adds one latency.
func (h *Histogram) Record(d time.Duration) {
	v := int64(d)
	if v < 0 {
		v = 0
	}
	h.counts[histIndex(v)]++
	if h.n == 0 || v < h.minV {
		h.minV = v
	}
	if v > h.maxV {
		h.maxV = v
	}
	h.n++
	h.sum += v
}

// Replace takes one recorded value old out and records new in its place (a value
// corrected after it was recorded). Without a recorded old it records new. The minimum
// is then the least recorded value to within a bucket (1/16).
func (h *Histogram) Replace(old, new time.Duration) {
	o := int64(max(old, 0))
	i := histIndex(o)
	if h.counts[i] == 0 {
		h.Record(new)
		return
	}
	h.counts[i]--
	h.n--
	h.sum -= o
	if h.n == 0 {
		*h = Histogram{}
	} else if o == h.minV && h.counts[i] == 0 {
		for j, c := range h.counts {
			if c != 0 {
				h.minV = histLower(j)
				break
			}
		}
	}
	h.Record(new)
}

// Merge adds o's counts to h.
func (h *Histogram) Merge(o *Histogram) {
	if o.n == 0 {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.n == 0 || o.minV < h.minV {
		h.minV = o.minV
	}
	h.maxV = max(h.maxV, o.maxV)
	h.n += o.n
	h.sum += o.sum
}

// Count is the number of recorded values.
func (h *Histogram) Count() int64 { return h.n }

// Mean is the exact mean of the recorded values.
func (h *Histogram) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return time.Duration(h.sum / h.n)
}

// Max is the largest recorded value.
func (h *Histogram) Max() time.Duration { return time.Duration(h.maxV) }

// Quantile returns the value at quantile q (0..1): the middle of the bucket holding it,
// clamped to the recorded minimum and maximum.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := int64(q*float64(h.n) + 0.5)
	rank = min(max(rank, 1), h.n)
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			lo, hi := histLower(i), histLower(i+1)
			v := lo + (hi-lo)/2
			return time.Duration(min(max(v, h.minV), h.maxV))
		}
	}
	return time.Duration(h.maxV)
}

type histogramJSON struct {
	Count   int64      `json:"count"`
	MeanNs  int64      `json:"mean_ns"`
	MinNs   int64      `json:"min_ns"`
	MaxNs   int64      `json:"max_ns"`
	P50Ns   int64      `json:"p50_ns"`
	P90Ns   int64      `json:"p90_ns"`
	P99Ns   int64      `json:"p99_ns"`
	P999Ns  int64      `json:"p999_ns"`
	SumNs   int64      `json:"sum_ns"`
	Buckets [][2]int64 `json:"buckets,omitempty"` // [lower bound ns, count], nonzero only
}

// MarshalJSON writes summary quantiles and the nonzero buckets, from which
// UnmarshalJSON rebuilds the histogram exactly.
func (h Histogram) MarshalJSON() ([]byte, error) {
	j := histogramJSON{
		Count: h.n, MeanNs: int64(h.Mean()), MinNs: h.minV, MaxNs: h.maxV, SumNs: h.sum,
		P50Ns: int64(h.Quantile(0.5)), P90Ns: int64(h.Quantile(0.9)),
		P99Ns: int64(h.Quantile(0.99)), P999Ns: int64(h.Quantile(0.999)),
	}
	for i, c := range h.counts {
		if c != 0 {
			j.Buckets = append(j.Buckets, [2]int64{histLower(i), c})
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	var j histogramJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*h = Histogram{n: j.Count, sum: j.SumNs, minV: j.MinNs, maxV: j.MaxNs}
	for _, bc := range j.Buckets {
		h.counts[histIndex(bc[0])] += bc[1]
	}
	return nil
}
