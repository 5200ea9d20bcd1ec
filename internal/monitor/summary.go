package monitor

import (
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

// WindowSummary summarises the samples of one window. A sample's values belong to a
// window when the time they describe, since the sample before, lies inside the
// window: the window's first sample is their base, and the values summarised are
// those of the samples after it. Its counters rise from the window's start to its
// end, each read at those instants by interpolation between the samples around them
// (counters.go).
type WindowSummary struct {
	Label string    `json:"label"`
	Users int       `json:"users,omitempty"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Cut says the window was still open when the monitor stopped (an interrupted run).
	Cut bool `json:"cut,omitempty"`
	// CoveredS is the time counter rates are over: from the window's start to its
	// end when samples bracket both, else from its first sample inside it or to its
	// last; Samples the samples whose values are summarised.
	CoveredS float64 `json:"covered_s"`
	Samples  int     `json:"samples"`
	// Series holds each value's statistics, Counters each counter's rise and rate.
	Series   map[string]Stats        `json:"series"`
	Counters map[string]CounterDelta `json:"counters"`
}

// Stats are a value's statistics over a window. Each sample's value stands for the
// time since the value was read before (its source's previous reading), so Mean and
// the percentiles weigh it by that time: a sample taken a few milliseconds after
// another, for a window's mark or at the monitor's stop, counts for those
// milliseconds, not as much as a whole interval. The percentiles are nearest-rank of
// that time: P50 is the least value the series was at or below for half of it. Min and
// Max are of the samples; N counts them.
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
// as rises from zero), and that per second of the time it was read over: the
// window's, from mark to mark, when it was read before the start and after the end.
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

// window accumulates a window's samples: its values sample by sample (add), its
// counters as spans from its start to its end (count).
type window struct {
	label      string
	users      int
	start, end time.Time
	ended, cut bool

	based  bool
	lastAt time.Time
	values map[string][]timed
	// read is when each value was last read, in any sample the window was shown:
	// the start of the time the next reading of it stands for.
	read    map[string]time.Time
	samples int

	// spans are the counters', edges the window's own start and end as its
	// counters see them (CoveredS); closed says the end is reached.
	spans   map[string]*span
	edges   *span
	closed  bool
	summary *WindowSummary
}

// timed is a value and the seconds it stands for.
type timed struct{ v, s float64 }

// add takes s's values into the window if it belongs there. Every sample taken
// while the window is open should be shown, those outside it too: they say when each
// value was last read.
func (w *window) add(s *Sample) {
	if w.summary != nil {
		return
	}
	if w.read == nil {
		w.read = map[string]time.Time{}
	}
	at := s.At()
	if at.Before(w.start) || (w.ended && at.After(w.end)) {
		w.noteRead(s)
		return
	}
	if !w.based {
		w.based, w.lastAt, w.values = true, s.Time, map[string][]timed{}
		w.noteRead(s)
		return
	}
	w.samples++
	for k, v := range s.Values {
		since, ok := w.read[k]
		if !ok { // first read now: it stands for the time since the sample before
			since = w.lastAt
		}
		w.values[k] = append(w.values[k], timed{v, max(0, s.Time.Sub(since).Seconds())})
	}
	w.lastAt = s.Time
	w.noteRead(s)
}

// take shows the window sample s, whose counters p has just added to tr.
func (w *window) take(s *Sample, tr *trail, p rises) {
	if w.summary != nil {
		return
	}
	w.add(s)
	w.count(tr, p)
}

func (w *window) noteRead(s *Sample) {
	for k := range s.Values {
		w.read[k] = s.Time
	}
}

// finish computes the window's summary (once); tr has the samples around its end.
func (w *window) finish(tr *trail) *WindowSummary {
	if w.summary != nil {
		return w.summary
	}
	if !w.closed {
		w.close(tr)
	}
	ws := &WindowSummary{Label: w.label, Users: w.users, Start: w.start.UTC(), End: w.end.UTC(), Cut: w.cut,
		Samples: w.samples, Series: map[string]Stats{}}
	ws.Counters, ws.CoveredS = w.counters()
	for k, vs := range w.values {
		ws.Series[k] = newStats(vs)
	}
	w.summary, w.values, w.spans = ws, nil, nil
	return ws
}

// newStats summarises vs (not empty), each value weighed by the time it stands for
// (Stats). Values that stand for no time at all (a clock that stepped back) weigh
// alike, so that they still have a mean.
func newStats(vs []timed) Stats {
	sorted := append([]timed(nil), vs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].v < sorted[j].v })
	total := 0.0
	for _, t := range sorted {
		total += t.s
	}
	weight := func(t timed) float64 { return t.s }
	if total <= 0 {
		weight, total = func(timed) float64 { return 1 }, float64(len(sorted))
	}
	sum := 0.0
	for _, t := range sorted {
		sum += weight(t) * t.v
	}
	// rank is the least value whose weight with the values below it reaches p% of the
	// total (nearest-rank when the weights are equal); the tolerance keeps a sum of
	// equal weights that rounds just below p% from moving to the next value.
	rank := func(p float64) float64 {
		need, cum := p/100*total*(1-1e-12), 0.0
		for _, t := range sorted {
			if cum += weight(t); cum >= need {
				return t.v
			}
		}
		return sorted[len(sorted)-1].v
	}
	return Stats{Mean: round3(sum / total), Min: sorted[0].v, Max: sorted[len(sorted)-1].v,
		P50: rank(50), P95: rank(95), P99: rank(99), N: len(sorted)}
}
