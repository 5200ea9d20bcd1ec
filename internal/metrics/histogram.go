package metrics

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

const (
	// minLatency and maxLatency bound what a histogram tracks, in microseconds. A
	// transaction slower than an hour is recorded as an hour (and counted in Clamped).
	minLatency = 1
	maxLatency = int64(time.Hour / time.Microsecond)
	sigFigs    = 2
)

// Histogram is a latency histogram with microsecond resolution and bounded memory.
// Values are kept to two significant digits (1%), which holds a histogram to about
// 26 KiB; it is not safe for concurrent use, and Registry gives each worker its own.
type Histogram struct {
	h       *hdr.Histogram
	clamped int64
}

// NewHistogram returns an empty histogram.
func NewHistogram() *Histogram {
	return &Histogram{h: hdr.New(minLatency, maxLatency, sigFigs)}
}

// Record adds one latency.
func (h *Histogram) Record(d time.Duration) {
	us := d.Microseconds()
	if us < minLatency {
		us = minLatency
	}
	if us > maxLatency {
		us = maxLatency
		h.clamped++
	}
	_ = h.h.RecordValue(us) // cannot fail: us is within the range
}

// Merge adds every value of from.
func (h *Histogram) Merge(from *Histogram) {
	h.h.Merge(from.h)
	h.clamped += from.clamped
}

// Reset empties the histogram, keeping its memory.
func (h *Histogram) Reset() {
	h.h.Reset()
	h.clamped = 0
}

// Count is the number of values recorded.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Clamped is the number of values above the tracked range (one hour).
func (h *Histogram) Clamped() int64 { return h.clamped }

// Quantile returns the latency at quantile q (0.5 for the median, 0.999 for p99.9):
// the smallest recorded value that at least q of all values do not exceed, to within
// the histogram's precision (1%). It is 0 for an empty histogram.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.h.TotalCount() == 0 {
		return 0
	}
	return time.Duration(h.h.ValueAtQuantile(q*100)) * time.Microsecond
}

// Max is the largest value recorded, to within the histogram's precision.
func (h *Histogram) Max() time.Duration {
	return time.Duration(h.h.Max()) * time.Microsecond
}

// Mean is the average value.
func (h *Histogram) Mean() time.Duration {
	return time.Duration(h.h.Mean() * float64(time.Microsecond))
}

// Latency is a histogram summarised in milliseconds, as results report it.
type Latency struct {
	P50  float64 `json:"p50_ms"`
	P90  float64 `json:"p90_ms"`
	P95  float64 `json:"p95_ms"`
	P99  float64 `json:"p99_ms"`
	P999 float64 `json:"p99_9_ms"`
	Max  float64 `json:"max_ms"`
	Mean float64 `json:"mean_ms"`
}

// Summary returns the percentiles results report.
func (h *Histogram) Summary() Latency {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return Latency{
		P50: ms(h.Quantile(0.50)), P90: ms(h.Quantile(0.90)), P95: ms(h.Quantile(0.95)),
		P99: ms(h.Quantile(0.99)), P999: ms(h.Quantile(0.999)), Max: ms(h.Max()),
		Mean: float64(h.Mean().Microseconds()) / 1000,
	}
}
