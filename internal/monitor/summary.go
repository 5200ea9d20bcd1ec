package monitor

import (
	"math"
	"sort"
	"strings"
	"time"

	"tierbench/internal/engine"
)

// Summary is what a monitor measured, for a result to embed: the whole run's
// window, each measured window (a level of users in a sweep), how each source fared,
// where the directories' disks are, and what every series means.
type Summary struct {
	IntervalS float64 `json:"interval_s"`
	// File and CSVFile are metrics.jsonl and metrics.csv in the run's directory (empty
	// when the monitor wrote no files).
	File    string         `json:"file,omitempty"`
	CSVFile string         `json:"csv_file,omitempty"`
	Samples int            `json:"samples"`
	Start   time.Time      `json:"start"`
	End     time.Time      `json:"end"`
	Sources []SourceStatus `json:"sources"`
	// NotSampled are sources that could not be set up, and why.
	NotSampled []Unavailable `json:"not_sampled,omitempty"`
	Storage    []Placement   `json:"storage,omitempty"`
	// Run covers the monitor's whole time, Windows each window marked in it.
	Run     *WindowSummary  `json:"run,omitempty"`
	Windows []WindowSummary `json:"windows,omitempty"`
	// Series documents every series: its kind, unit and meaning.
	Series []SeriesInfo `json:"series"`
}

// Level is the window of the level of users users, nil if none was marked.
func (s *Summary) Level(users int) *WindowSummary {
	if s == nil {
		return nil
	}
	for i := range s.Windows {
		if s.Windows[i].Users == users {
			return &s.Windows[i]
		}
	}
	return nil
}

// Window is the window labelled label ("power", "4 users"), nil if none was marked.
func (s *Summary) Window(label string) *WindowSummary {
	if s == nil {
		return nil
	}
	for i := range s.Windows {
		if s.Windows[i].Label == label {
			return &s.Windows[i]
		}
	}
	return nil
}

// WindowSummary summarises the samples of one window. A sample belongs to a window
// when the time it describes, since the sample before it, lies inside the window: the
// window's first sample is the base its counters' rates start from, and the values
// summarised are those of the samples after it.
type WindowSummary struct {
	Label string    `json:"label"`
	Users int       `json:"users,omitempty"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Cut says the window was still open when the monitor stopped (an interrupted run).
	Cut bool `json:"cut,omitempty"`
	// CoveredS is the time from the window's first sample to its last, which counter
	// rates are over; Samples the samples whose values are summarised.
	CoveredS float64 `json:"covered_s"`
	Samples  int     `json:"samples"`
	// Series holds each value's statistics, Counters each counter's rise and rate.
	Series   map[string]Stats        `json:"series"`
	Counters map[string]CounterDelta `json:"counters"`
}

// Stats are a value's statistics over a window; percentiles are nearest-rank.
type Stats struct {
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	N    int     `json:"n"`
}

// CounterDelta is how much a counter rose over a window (restarts from zero counted
// as rises from zero), and that per second of the time it was read over.
type CounterDelta struct {
	Delta float64 `json:"delta"`
	PerS  float64 `json:"per_s"`
}

// Mean is the mean of value name over the window (ok false when not sampled).
func (w *WindowSummary) Mean(name string) (float64, bool) {
	st, ok := w.Series[name]
	return st.Mean, ok
}

// Delta is counter name's rise over the window.
func (w *WindowSummary) Delta(name string) (float64, bool) {
	c, ok := w.Counters[name]
	return c.Delta, ok
}

// Share is the rise of counter num over that of den, in percent: the host's user time
// over its total (host.cpu.all.user_s, host.cpu.all.total_s).
func (w *WindowSummary) Share(num, den string) (float64, bool) {
	n, ok1 := w.Counters[num]
	d, ok2 := w.Counters[den]
	if !ok1 || !ok2 || d.Delta <= 0 {
		return 0, false
	}
	return 100 * n.Delta / d.Delta, true
}

// BufferHitPct is the share of page reads the engine's buffer served over the window.
func (w *WindowSummary) BufferHitPct() (float64, bool) {
	h, ok1 := w.Counters["engine."+engine.StatBufferHits]
	m, ok2 := w.Counters["engine."+engine.StatBufferMisses]
	if !ok1 || !ok2 || h.Delta+m.Delta <= 0 {
		return 0, false
	}
	return 100 * h.Delta / (h.Delta + m.Delta), true
}

// Names lists the window's values whose names begin with prefix, sorted.
func (w *WindowSummary) Names(prefix string) []string {
	var out []string
	for name := range w.Series {
		if strings.HasPrefix(name, prefix) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// window accumulates a window's samples.
type window struct {
	label      string
	users      int
	start, end time.Time
	ended, cut bool

	based           bool
	firstAt, lastAt time.Time
	prev            map[string]float64
	inc             map[string]float64
	from, to        map[string]time.Time // when each counter was first and last read
	values          map[string][]float64
	samples         int
	summary         *WindowSummary
}

// add takes s into the window if it belongs there.
func (w *window) add(s *Sample) {
	if w.summary != nil {
		return
	}
	at := s.At()
	if at.Before(w.start) || (w.ended && at.After(w.end)) {
		return
	}
	if !w.based {
		w.based, w.firstAt, w.lastAt = true, s.Time, s.Time
		w.prev, w.inc, w.values = map[string]float64{}, map[string]float64{}, map[string][]float64{}
		w.from, w.to = map[string]time.Time{}, map[string]time.Time{}
		for k, v := range s.Counters {
			w.prev[k], w.from[k], w.to[k] = v, s.Time, s.Time
		}
		return
	}
	w.samples++
	w.lastAt = s.Time
	for k, v := range s.Values {
		w.values[k] = append(w.values[k], v)
	}
	for k, v := range s.Counters {
		p, ok := w.prev[k]
		switch {
		case !ok:
			w.from[k] = s.Time
		case v >= p:
			w.inc[k] += v - p
		default:
			w.inc[k] += v // the counter restarted from zero
		}
		w.prev[k], w.to[k] = v, s.Time
	}
}

// finish computes the window's summary (once).
func (w *window) finish() *WindowSummary {
	if w.summary != nil {
		return w.summary
	}
	ws := &WindowSummary{Label: w.label, Users: w.users, Start: w.start.UTC(), End: w.end.UTC(), Cut: w.cut,
		Samples: w.samples, Series: map[string]Stats{}, Counters: map[string]CounterDelta{}}
	if w.based {
		ws.CoveredS = round3(w.lastAt.Sub(w.firstAt).Seconds())
	}
	for k, vs := range w.values {
		ws.Series[k] = newStats(vs)
	}
	for k, d := range w.inc {
		c := CounterDelta{Delta: d}
		if secs := w.to[k].Sub(w.from[k]).Seconds(); secs > 0 {
			c.PerS = round3(d / secs)
		}
		ws.Counters[k] = c
	}
	w.summary, w.values = ws, nil
	return ws
}

// newStats summarises vs (not empty).
func newStats(vs []float64) Stats {
	sorted := append([]float64(nil), vs...)
	sort.Float64s(sorted)
	sum := 0.0
	for _, v := range sorted {
		sum += v
	}
	rank := func(p float64) float64 {
		i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
		return sorted[max(0, min(i, len(sorted)-1))]
	}
	return Stats{Mean: round3(sum / float64(len(sorted))), Min: sorted[0], Max: sorted[len(sorted)-1],
		P50: rank(50), P95: rank(95), P99: rank(99), N: len(sorted)}
}
