package monitor

import (
	"context"
	"math"
	"slices"
	"time"
)

// Source is one thing the monitor reads at each sample: the host, processes, block
// devices, emulated devices, an engine. The monitor calls Read from one goroutine at a
// time, with the sample's time; sources of one sample run in parallel.
type Source interface {
	// Name names the source in statuses and errors: "host", "processes", "storage",
	// "emulated", "engine".
	Name() string
	// Series documents every series Read may add.
	Series() []SeriesInfo
	// Read adds the source's values and counters at now to r. Values over time (rates,
	// shares) cover the time since the source's previous successful Read, so the first
	// Read adds only levels and counters.
	Read(ctx context.Context, now time.Time, r *Reading) error
}

// Unavailable is something a source cannot measure on this host, and why; it is not
// an error (a kernel without pressure stall information, a directory on tmpfs).
type Unavailable struct {
	What string `json:"what"`
	Why  string `json:"why"`
}

// Limited is implemented by sources that cannot measure everything on this host.
type Limited interface {
	Unavailable() []Unavailable
}

// Reading is what one source read for one sample.
type Reading struct {
	Values   map[string]float64
	Counters map[string]float64
}

func newReading() *Reading {
	return &Reading{Values: map[string]float64{}, Counters: map[string]float64{}}
}

// Value sets a value; NaN and infinities are left out.
func (r *Reading) Value(name string, v float64) {
	if !math.IsNaN(v) && !math.IsInf(v, 0) {
		r.Values[name] = v
	}
}

// Counter sets a counter.
func (r *Reading) Counter(name string, v float64) {
	if !math.IsNaN(v) && !math.IsInf(v, 0) {
		r.Counters[name] = v
	}
}

// deltas keeps a source's previous counters, for the rates and shares of the next
// reading.
type deltas struct {
	at   time.Time
	prev map[string]float64
	cur  map[string]float64
	now  time.Time
}

// begin starts a reading at now.
func (d *deltas) begin(now time.Time) {
	d.now, d.cur = now, map[string]float64{}
}

// set records counter name's value in this reading; it returns its increase since the
// previous reading (ok false on the first reading, or after the counter went back:
// a restart).
func (d *deltas) set(name string, v float64) (delta float64, ok bool) {
	d.cur[name] = v
	p, had := d.prev[name]
	if !had || v < p {
		return 0, false
	}
	return v - p, true
}

// secs is the time since the previous reading (0 on the first).
func (d *deltas) secs() float64 {
	if d.at.IsZero() {
		return 0
	}
	return d.now.Sub(d.at).Seconds()
}

// rate is name's increase per second since the previous reading.
func (d *deltas) rate(name string, v float64) (float64, bool) {
	delta, ok := d.set(name, v)
	s := d.secs()
	if !ok || s <= 0 {
		return 0, false
	}
	return delta / s, true
}

// commit ends a successful reading: its counters become the previous ones.
func (d *deltas) commit() {
	d.at, d.prev = d.now, d.cur
}

// device records a device's cumulative counters under base (all but hidden ones,
// which only feed its values) and returns their increases over the secs since the
// previous reading; ok is false on the first reading or after a counter went back.
func (d *deltas) device(r *Reading, base string, counters map[string]float64, hidden ...string) (delta map[string]float64, secs float64, ok bool) {
	delta, ok = map[string]float64{}, true
	for name, v := range counters {
		if !slices.Contains(hidden, name) {
			r.Counter(base+"."+name, v)
		}
		dv, okName := d.set(base+"."+name, v)
		delta[name], ok = dv, ok && okName
	}
	secs = d.secs()
	return delta, secs, ok && secs > 0
}

// ioValues adds a device's rates: IOPS, MB/s, flushes a second (when it counts them)
// and utilisation, from the increases of its reads, writes, read_bytes, write_bytes,
// flushes and busy_s over secs.
func ioValues(r *Reading, base string, delta map[string]float64, secs float64) {
	r.Value(base+".read_iops", delta["reads"]/secs)
	r.Value(base+".write_iops", delta["writes"]/secs)
	r.Value(base+".read_mb_s", delta["read_bytes"]/1e6/secs)
	r.Value(base+".write_mb_s", delta["write_bytes"]/1e6/secs)
	if f, ok := delta["flushes"]; ok {
		r.Value(base+".flush_per_s", f/secs)
	}
	r.Value(base+".util_pct", min(100, 100*delta["busy_s"]/secs))
}
