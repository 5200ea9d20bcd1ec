package metrics

import (
	"math"
	"testing"
	"time"
)

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// within says whether got is want to the histogram's precision (2 significant digits).
func within(got, want time.Duration) bool {
	return math.Abs(float64(got-want)) <= 0.01*float64(want)+float64(time.Microsecond)
}

func TestHistogramPercentiles(t *testing.T) {
	// 1..1000 ms: the q-quantile is the value at rank ceil(q*1000).
	h := NewHistogram()
	for i := 1; i <= 1000; i++ {
		h.Record(ms(float64(i)))
	}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{
		{0.5, ms(500)}, {0.9, ms(900)}, {0.95, ms(950)}, {0.99, ms(990)}, {0.999, ms(999)}, {1, ms(1000)},
	} {
		if got := h.Quantile(tc.q); !within(got, tc.want) {
			t.Errorf("q%v = %v, want %v", tc.q, got, tc.want)
		}
	}
	if h.Count() != 1000 || !within(h.Max(), ms(1000)) || !within(h.Mean(), ms(500.5)) {
		t.Errorf("count %d max %v mean %v", h.Count(), h.Max(), h.Mean())
	}
}

func TestHistogramMerge(t *testing.T) {
	// Two workers: one saw 90 fast transactions (2 ms), one 10 slow ones (100 ms).
	// Merged: p50 and p90 are 2 ms, p91 and above 100 ms, max 100 ms, mean 11.8 ms.
	a, b := NewHistogram(), NewHistogram()
	for range 90 {
		a.Record(ms(2))
	}
	for range 10 {
		b.Record(ms(100))
	}
	m := NewHistogram()
	m.Merge(a)
	m.Merge(b)
	checks := []struct {
		name      string
		got, want time.Duration
	}{
		{"p50", m.Quantile(0.5), ms(2)}, {"p90", m.Quantile(0.9), ms(2)}, {"p91", m.Quantile(0.91), ms(100)},
		{"p99", m.Quantile(0.99), ms(100)}, {"max", m.Max(), ms(100)}, {"mean", m.Mean(), ms(11.8)},
	}
	for _, c := range checks {
		if !within(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if m.Count() != 100 {
		t.Errorf("count %d", m.Count())
	}
}

func TestHistogramBounds(t *testing.T) {
	h := NewHistogram()
	h.Record(0)
	h.Record(3 * time.Hour)
	if h.Count() != 2 || h.Clamped() != 1 {
		t.Errorf("count %d clamped %d", h.Count(), h.Clamped())
	}
	if !within(h.Max(), time.Hour) {
		t.Errorf("max %v, want the 1 h ceiling", h.Max())
	}
	empty := NewHistogram()
	if empty.Quantile(0.99) != 0 {
		t.Error("empty histogram has a p99")
	}
}

func TestRegistryTicks(t *testing.T) {
	start := time.Unix(1000, 0)
	r := NewRegistry([]string{"a", "b"}, start)
	h1, h2 := r.NewHandle(), r.NewHandle()
	h1.Record("a", ms(1), Counts{Queries: 3})
	h2.Record("a", ms(3), Counts{Queries: 3})
	h2.Record("b", ms(5), Counts{Errors: 1, Queries: 2}) // a failure: no latency
	h2.Record("nope", ms(5), Counts{})
	iv, cum := r.Tick(start.Add(2*time.Second), start)
	if iv.Count("a") != 2 || iv.Count("b") != 0 || iv.Total().Errors != 1 || iv.Total().Queries != 8 {
		t.Errorf("interval: a %d b %d %+v", iv.Count("a"), iv.Count("b"), iv.Total())
	}
	if iv.Rate(iv.Count("")) != 1 {
		t.Errorf("rate %v, want 1/s", iv.Rate(iv.Count("")))
	}
	h1.Record("b", ms(7), Counts{Rollbacks: 1})
	iv, cum = r.Tick(start.Add(4*time.Second), start)
	if iv.Count("") != 1 || cum.Count("") != 3 || cum.Duration() != 4*time.Second {
		t.Errorf("second tick: interval %d cumulative %d over %v", iv.Count(""), cum.Count(""), cum.Duration())
	}
	r.ResetCumulative(start.Add(4 * time.Second))
	h1.Record("a", ms(9), Counts{})
	_, cum = r.Tick(start.Add(5*time.Second), start)
	if cum.Count("") != 1 || cum.Duration() != time.Second || cum.Elapsed != 5*time.Second {
		t.Errorf("after reset: %d over %v elapsed %v", cum.Count(""), cum.Duration(), cum.Elapsed)
	}
}

// A handle's recorder of one operation adds to the same histogram as Record by name,
// across ticks, and exists only for the registry's operations.
func TestHandleOp(t *testing.T) {
	start := time.Unix(1000, 0)
	r := NewRegistry([]string{"a", "b"}, start)
	h := r.NewHandle()
	a, ok := h.Op("a")
	if _, known := h.Op("nope"); !ok || known {
		t.Fatalf("Op(a) found %v, Op(nope) found %v", ok, known)
	}
	a.Record(ms(2))
	h.Record("a", ms(4), Counts{Queries: 1})
	iv, _ := r.Tick(start.Add(time.Second), start)
	if rep := iv.Report("a"); rep.Count != 2 || rep.Queries != 1 || iv.Count("b") != 0 {
		t.Errorf("first tick: a %+v, b %d", rep, iv.Count("b"))
	}
	a.Record(ms(6))
	a.Record(ms(8))
	iv, cum := r.Tick(start.Add(2*time.Second), start)
	if iv.Count("a") != 2 || cum.Count("a") != 4 {
		t.Errorf("second tick: interval %d, cumulative %d; want 2 and 4", iv.Count("a"), cum.Count("a"))
	}
	// (2+4+6+8)/4 ms
	if got := cum.Report("a").Latency.Mean; got < 4.99 || got > 5.01 {
		t.Errorf("mean %v ms, want 5", got)
	}
}

// TestHistogramMemoryIsBounded: a histogram's memory does not grow with what it
// records, so long runs stay flat.
func TestHistogramMemoryIsBounded(t *testing.T) {
	h := NewHistogram()
	before := h.h.ByteSize()
	for i := 0; i < 1_000_000; i++ {
		h.Record(time.Duration(i*7919%3_600_000_000) * time.Microsecond)
	}
	if after := h.h.ByteSize(); after != before {
		t.Errorf("histogram grew from %d to %d bytes", before, after)
	}
	if before > 64<<10 {
		t.Errorf("a histogram takes %d bytes; results keep one per worker and transaction type", before)
	}
	t.Logf("histogram: %d bytes", before)
}

// TestFirstErrorTravelsWithItsCount: a window names the earliest failure it counts,
// across handles, and none that it does not count (a ramp's, discarded with its
// counts).
func TestFirstErrorTravelsWithItsCount(t *testing.T) {
	start := time.Unix(1000, 0)
	r := NewRegistry([]string{"a", "b"}, start)
	h1, h2 := r.NewHandle(), r.NewHandle()
	h1.RecordError("a", start.Add(time.Second), "ramp error", Counts{Queries: 1})
	r.Tick(start.Add(2*time.Second), start)
	r.ResetCumulative(start.Add(2 * time.Second)) // the ramp ends
	h1.RecordError("a", start.Add(4*time.Second), "later", Counts{Queries: 2})
	h2.RecordError("a", start.Add(3*time.Second), "earliest", Counts{Errors: 1})
	h2.RecordError("a", start.Add(3500*time.Millisecond), "second of h2", Counts{})
	h1.Record("b", ms(1), Counts{})
	iv, cum := r.Tick(start.Add(5*time.Second), start)
	for name, s := range map[string]*Snapshot{"interval": iv, "cumulative": cum} {
		a, b := s.Report("a"), s.Report("b")
		if a.Errors != 3 || a.Queries != 2 || a.Count != 0 || a.FirstError != "earliest" {
			t.Errorf("%s: a %+v, want 3 errors, 2 queries, first error %q", name, a, "earliest")
		}
		if b.Errors != 0 || b.FirstError != "" {
			t.Errorf("%s: b %+v names an error it does not count", name, b)
		}
	}
	// A later window keeps the cumulative first error, and the interval's own.
	h1.RecordError("b", start.Add(6*time.Second), "b failed", Counts{})
	iv, cum = r.Tick(start.Add(7*time.Second), start)
	if iv.Report("a").FirstError != "" || iv.Report("b").FirstError != "b failed" ||
		cum.Report("a").FirstError != "earliest" || cum.Report("b").FirstError != "b failed" {
		t.Errorf("second window: interval %+v, cumulative %+v", iv.Report("b"), cum.Report("a"))
	}
}
