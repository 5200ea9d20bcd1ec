package monitor

import (
	"math"
	"time"
)

// A sample's Counters are cumulative: each only grows while what it counts goes on,
// and falls only when its source starts again from zero. They are the series whose
// SeriesInfo.Kind is Counter: the host's CPU time by mode, context switches and
// pressure stall time; a process tree's CPU time; a disk's or an emulated tier's
// requests, bytes, and busy, wait and queue time; an engine's (engine.Counter)
// commits, rollbacks, buffer hits and misses, rows and time waited for locks. A
// counter's value between two samples can therefore be estimated on the straight
// line between them, which is how a window's counters start and end at its marks'
// own instants: a mark's sample is taken when the sampler next runs, milliseconds
// after the mark on a loaded host. Values are not interpolated: they are levels, or
// rates and shares a source computed over the time since its previous reading, and
// a window summarises them sample by sample (Stats).

// trailLen is how many of the latest samples the monitor keeps the counters of. A
// mark reaches the monitor a moment after the instant it names, and the window
// needs the sample before that instant then; 32 samples cover 320 ms at the
// shortest interval (MinInterval).
const trailLen = 32

// rises are the counters of one sample as each has risen since the monitor first
// read it, a restart from zero counted as a rise from zero: on that scale a
// window's rise is its end's figure less its start's, however often the counter
// restarted in between.
type rises struct {
	at   time.Time
	rise map[string]float64
}

// trail keeps the latest trailLen samples' rises.
type trail struct {
	last   map[string]float64 // each counter's last reading
	rise   map[string]float64 // each counter's rise since its first reading
	points []rises            // oldest first
}

// add takes sample s's counters onto the trail.
func (tr *trail) add(s *Sample) rises {
	if tr.last == nil {
		tr.last, tr.rise = map[string]float64{}, map[string]float64{}
	}
	p := rises{at: s.Time, rise: make(map[string]float64, len(s.Counters))}
	for k, v := range s.Counters {
		if prev, ok := tr.last[k]; ok {
			if v >= prev {
				tr.rise[k] += v - prev
			} else {
				tr.rise[k] += v // the counter restarted from zero
			}
		}
		tr.last[k] = v
		p.rise[k] = tr.rise[k]
	}
	if len(tr.points) == trailLen {
		tr.points = append(tr.points[:0], tr.points[1:]...)
	}
	tr.points = append(tr.points, p)
	return p
}

// reading is one counter's rise at one sample's time.
type reading struct {
	at   time.Time
	rise float64
}

// of picks counter k out of a sample's rises; the empty name picks the sample
// itself (rise 0), whose times are a window's own edges.
func of(k string) func(rises) (float64, bool) {
	if k == "" {
		return func(rises) (float64, bool) { return 0, true }
	}
	return func(p rises) (float64, bool) { v, ok := p.rise[k]; return v, ok }
}

// around finds the readings the trail has of a counter (pick) that bracket instant
// x: the last at or before it and the first after it.
func (tr *trail) around(x time.Time, pick func(rises) (float64, bool)) (before, after reading, okBefore, okAfter bool) {
	for _, p := range tr.points {
		v, ok := pick(p)
		switch {
		case !ok:
		case !p.at.After(x):
			before, okBefore = reading{p.at, v}, true
		case !okAfter:
			after, okAfter = reading{p.at, v}, true
		}
	}
	return before, after, okBefore, okAfter
}

// interpolate is the rise at x, which lies from b's time to before a's, as if the
// counter rose at a steady rate between the two readings.
func interpolate(b, a reading, x time.Time) float64 {
	f := float64(x.Sub(b.at)) / float64(a.at.Sub(b.at))
	return b.rise + f*(a.rise-b.rise)
}

// span is one counter's rise over a window: r0 at from, r1 at to, on the trail's
// scale. from and to are the window's marks when readings bracket them, else the
// counter's first and last readings inside the window.
type span struct {
	from, to time.Time
	r0, r1   float64
}

// count takes sample p (just added to tr) into the window's counters: a counter's
// first reading after the window's start opens its span, every later one moves its
// end, and the first sample after the window's end closes them all.
func (w *window) count(tr *trail, p rises) {
	if w.closed || !p.at.After(w.start) {
		return
	}
	if w.spans == nil {
		w.spans = map[string]*span{}
	}
	if w.edges == nil {
		w.edges = w.open(tr, reading{p.at, 0}, of(""))
	}
	w.edges.to = p.at
	for k, v := range p.rise {
		if sp, ok := w.spans[k]; ok {
			sp.to, sp.r1 = p.at, v
		} else {
			w.spans[k] = w.open(tr, reading{p.at, v}, of(k))
		}
	}
	if w.ended && p.at.After(w.end) {
		w.close(tr)
	}
}

// open begins a counter's span at its first reading after the window's start:
// from the start itself, interpolated, when the trail has its reading before the
// start. Without one (the counter was first read inside the window, or the window
// began before the monitor's first sample) the span begins at first, as it is.
func (w *window) open(tr *trail, first reading, pick func(rises) (float64, bool)) *span {
	sp := &span{from: first.at, to: first.at, r0: first.rise, r1: first.rise}
	if b, _, ok, _ := tr.around(w.start, pick); ok {
		sp.from, sp.r0 = w.start, interpolate(b, first, w.start)
	}
	return sp
}

// close ends every span at the window's end, interpolated between the readings
// that bracket it. A counter not read since the end ends at its last reading before
// it; one the trail no longer has a reading of at or before the end (its source
// failed for trailLen samples) keeps its last reading, as it is. A counter first
// read after the end (the end was marked after that sample was taken) was not read
// inside the window and leaves it.
func (w *window) close(tr *trail) {
	w.closed = true
	end := func(sp *span, pick func(rises) (float64, bool)) {
		switch b, a, okB, okA := tr.around(w.end, pick); {
		case okB && okA:
			sp.to, sp.r1 = w.end, interpolate(b, a, w.end)
		case okB:
			sp.to, sp.r1 = b.at, b.rise
		}
	}
	if w.edges == nil {
		return
	}
	end(w.edges, of(""))
	for k, sp := range w.spans {
		if sp.from.After(w.end) {
			delete(w.spans, k)
			continue
		}
		end(sp, of(k))
	}
}

// counters is the window's CounterDelta of each counter read in it, and the time
// its counters cover (CoveredS).
func (w *window) counters() (map[string]CounterDelta, float64) {
	out := map[string]CounterDelta{}
	if w.edges == nil || w.edges.from.After(w.end) {
		return out, 0
	}
	for k, sp := range w.spans {
		c := CounterDelta{Delta: math.Round((sp.r1-sp.r0)*1e6) / 1e6}
		if secs := sp.to.Sub(sp.from).Seconds(); secs > 0 {
			c.PerS = round3((sp.r1 - sp.r0) / secs)
		}
		out[k] = c
	}
	return out, round3(w.edges.to.Sub(w.edges.from).Seconds())
}
