package monitor

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tierbench/internal/engine"
)

func sample(at time.Time, v float64, counters map[string]float64) *Sample {
	return &Sample{Time: at, Values: map[string]float64{"v": v}, Counters: counters}
}

// show takes samples into w as the monitor does, each onto tr first.
func show(w *window, tr *trail, samples ...*Sample) {
	for _, s := range samples {
		w.take(s, tr, tr.add(s))
	}
}

// TestWindow: a window's first sample is the base of its values, and the values of
// the samples after it are summarised (nearest-rank percentiles of the time each
// stands for); samples outside the window are left out, and a sample taken for the
// window's end mark counts as taken at the mark. Counters rise from the window's start
// to its end, read there between the samples around them, a restart from zero
// counted from zero.
func TestWindow(t *testing.T) {
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	w := &window{label: "4 users", users: 4, start: at(1), end: at(4), ended: true}
	end := at(4)
	tr := &trail{}
	show(w, tr,
		sample(at(0), 10, map[string]float64{"c": 0}),    // before the window
		sample(at(1), 20, map[string]float64{"c": 100}),  // the base, at the start
		sample(at(2), 30, map[string]float64{"c": 150}),  // +50
		sample(at(3), 40, map[string]float64{"c": 20}),   // restarted: +20
		sample(at(4.2), 99, map[string]float64{"c": 32}), // a tick after the end: +12 since 3 s
		&Sample{Time: at(4.3), Mark: "end 4 users", MarkTime: &end, Values: map[string]float64{"v": 50}, Counters: map[string]float64{"c": 33}},
		sample(at(5), 60, map[string]float64{"c": 90}), // after the end
	)
	ws := w.finish(tr)
	// 30 and 40 stand for a second each, 50 for the 0.1 s since the tick at 4.2 s:
	// (30 + 40 + 5) / 2.1 s; half of the 2.1 s is at or below 40, and so is 95%.
	want := Stats{Mean: 35.714, Min: 30, Max: 50, P50: 40, P95: 40, P99: 50, N: 3}
	if got := ws.Series["v"]; got != want {
		t.Errorf("v: %+v, want %+v", got, want)
	}
	// 50 + 20, and of the 12 from 3 s to 4.2 s the 10 before the end at 4 s: 80 over
	// the 3 s from the start to the end.
	if c := ws.Counters["c"]; c.Delta != 80 || c.PerS != 26.667 {
		t.Errorf("c: %+v, want a rise of 80 at 26.667/s", c)
	}
	if ws.Samples != 3 || ws.CoveredS != 3 || ws.Users != 4 || !ws.Start.Equal(at(1)) {
		t.Errorf("window %+v", ws)
	}
}

// TestCountersAtMarks: a window's counters are read at its marks' instants, between
// the samples around each, through the monitor's own marks.
//
//	at the mark: samples at 0 s (0 commits) and 1 s (100), the one at 1 s taken for
//	  the mark at 0.25 s that ends "load" and begins "power": "load" gets 25 in
//	  0.25 s, "power" the other 75 in 0.75 s, each 100 a second (without the
//	  interpolation "load" had all 100 and "power" none);
//	no earlier sample: "early" begins at 0 s, before the monitor's first sample at
//	  0.5 s (50), and ends at 1 s, with its sample at 1.5 s (150): it counts from the
//	  first sample, as it stands, 50 in 0.5 s, to its end, interpolated;
//	a late mark: "late" begins at 0.5 s but reaches the monitor after the sample at
//	  1 s (100; the one before, at 0 s, had 0), and ends at 1.2 s after the sample at
//	  1.4 s (140): 50 at its start, 120 at its end, 70 in 0.7 s.
func TestCountersAtMarks(t *testing.T) {
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	marked := func(s float64, mark string, markAt float64, commits float64) *Sample {
		ma := at(markAt)
		return &Sample{Time: at(s), Mark: mark, MarkTime: &ma, Values: map[string]float64{}, Counters: map[string]float64{"commits": commits}}
	}
	commits := func(s, c float64) *Sample { return sample(at(s), 0, map[string]float64{"commits": c}) }
	type want struct {
		delta, perS, coveredS float64
	}
	for _, tc := range []struct {
		name  string
		steps func(m *Monitor, show func(*Sample))
		want  map[string]want
		end   float64
	}{
		{"at the mark", func(m *Monitor, show func(*Sample)) {
			m.BeginWindow("load", 0, at(0))
			show(commits(0, 0))
			m.EndWindow("load", at(0.25))
			m.BeginWindow("power", 0, at(0.25))
			show(marked(1, "end load", 0.25, 100))
			m.EndWindow("power", at(1))
		}, map[string]want{"load": {25, 100, 0.25}, "power": {75, 100, 0.75}}, 1},
		{"no earlier sample", func(m *Monitor, show func(*Sample)) {
			m.BeginWindow("early", 0, at(0))
			show(commits(0.5, 50))
			m.EndWindow("early", at(1))
			show(marked(1.5, "end early", 1, 150))
		}, map[string]want{"early": {50, 100, 0.5}}, 1.5},
		{"a late mark", func(m *Monitor, show func(*Sample)) {
			show(commits(0, 0))
			show(commits(1, 100))
			m.BeginWindow("late", 0, at(0.5))
			show(commits(1.4, 140))
			m.EndWindow("late", at(1.2))
		}, map[string]want{"late": {70, 100, 0.7}}, 1.4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(Config{Interval: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			tc.steps(m, func(s *Sample) { m.mu.Lock(); m.record(s); m.mu.Unlock() })
			sum := m.summarize(at(tc.end))
			for label, w := range tc.want {
				ws := sum.Window(label)
				if ws == nil {
					t.Fatalf("no window %q in %+v", label, sum.Windows)
				}
				if c := ws.Counters["commits"]; c.Delta != w.delta || c.PerS != w.perS || ws.CoveredS != w.coveredS {
					t.Errorf("%s: %+v over %v s, want %v at %v/s over %v s", label, c, ws.CoveredS, w.delta, w.perS, w.coveredS)
				}
			}
		})
	}
}

// TestWindowTimeWeighted: a window of three one-second samples ends with the sample
// of its end mark, 5 ms after the last tick, which read the CPUs 100% busy over those
// 5 ms. Counted as a sample like the others it would make the mean 47.5% and the 95th
// percentile 100%; it stands for 5 ms of the window's 3.005 s:
//
//	busy: (20 + 30 + 40 + 100 x 0.005) / 3.005 = 30.116; p50 30 (2 s of 3.005 at or
//	      below it), p95 and p99 40 (3 s); min 20, max 100
//	q:    read at 1 s (1), not at 2 s (its source failed), at 3 s (4, for the 2 s since
//	      it was read), at 3.005 s (0): (1 + 8 + 0) / 3.005 = 2.995; p50 4 (sample
//	      by sample it would be 1)
func TestWindowTimeWeighted(t *testing.T) {
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	end := at(3.005)
	w := &window{label: "run", start: at(0), end: end, ended: true}
	tr := &trail{}
	for _, s := range []*Sample{
		{Time: at(0), Values: map[string]float64{"busy": 0}},
		{Time: at(1), Values: map[string]float64{"busy": 20, "q": 1}},
		{Time: at(2), Values: map[string]float64{"busy": 30}},
		{Time: at(3), Values: map[string]float64{"busy": 40, "q": 4}},
		{Time: end, Mark: "stop", MarkTime: &end, Values: map[string]float64{"busy": 100, "q": 0}},
	} {
		show(w, tr, s)
	}
	ws := w.finish(tr)
	for name, want := range map[string]Stats{
		"busy": {Mean: 30.116, Min: 20, Max: 100, P50: 30, P95: 40, P99: 40, N: 4},
		"q":    {Mean: 2.995, Min: 0, Max: 4, P50: 4, P95: 4, P99: 4, N: 3},
	} {
		if got := ws.Series[name]; got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
}

// equal is values that each stand for a second.
func equal(vs ...float64) []timed {
	out := make([]timed, len(vs))
	for i, v := range vs {
		out[i] = timed{v, 1}
	}
	return out
}

// TestPercentiles: with equal weights the percentiles are nearest-rank; values that
// stand for no time (a clock stepped back) weigh alike.
func TestPercentiles(t *testing.T) {
	vs := make([]float64, 100)
	for i := range vs {
		vs[i] = float64(100 - i) // 100 down to 1
	}
	if st := newStats(equal(vs...)); st.P50 != 50 || st.P95 != 95 || st.P99 != 99 || st.Mean != 50.5 || st.Min != 1 || st.Max != 100 {
		t.Errorf("1..100: %+v", st)
	}
	if st := newStats(equal(7)); st.P50 != 7 || st.P99 != 7 || st.N != 1 {
		t.Errorf("one value: %+v", st)
	}
	if st := newStats([]timed{{3, 0}, {1, 0}, {2, 0}}); st.Mean != 2 || st.P50 != 2 || st.P99 != 3 {
		t.Errorf("no time at all: %+v", st)
	}
	// 10 for 0.1 s, 0 for 0.9 s: a mean of 1, and 0 for 90% of the time.
	if st := newStats([]timed{{10, 0.1}, {0, 0.9}}); st.Mean != 1 || st.P50 != 0 || st.P95 != 10 {
		t.Errorf("weighted: %+v", st)
	}
}

// countingSource adds 10 to its counter at every reading and reports the readings so
// far as its value: a window's counter rise is then 10 times its samples, however the
// samples fell in time.
type countingSource struct{ n float64 }

func (c *countingSource) Name() string { return "counting" }
func (c *countingSource) Series() []SeriesInfo {
	return []SeriesInfo{value("count.reads", "reads", "readings"), counter("count.total", "units", "10 a reading")}
}
func (c *countingSource) Read(_ context.Context, _ time.Time, r *Reading) error {
	c.n++
	r.Value("count.reads", c.n)
	r.Counter("count.total", 10*c.n)
	return nil
}

// TestMonitorWindows: windows marked while the monitor runs get their samples; the
// run's window has every sample but the first; a bad interval is refused naming
// --sample.
func TestMonitorWindows(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		if _, err := New(Config{Interval: d}); err == nil || !strings.Contains(err.Error(), "--sample") {
			t.Errorf("interval %s: %v", d, err)
		}
	}
	src := &countingSource{}
	dir := t.TempDir()
	m, err := New(Config{Interval: 5 * time.Millisecond, Dir: dir, Sources: []Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	m.Start()
	startAt := time.Now()
	m.Mark(LevelLabel(2), true, startAt)
	waitFor(t, func() bool { based, _ := windowState(m, "2 users"); return based })
	waitFor(t, func() bool { return m.Latest().Values["count.reads"] >= 8 })
	endAt := time.Now()
	m.Mark(LevelLabel(2), false, endAt)
	waitFor(t, func() bool { _, done := windowState(m, "2 users"); return done })
	sum, err := m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	w := sum.Level(2)
	if w == nil || w.Label != "2 users" || w.Cut {
		t.Fatalf("windows %+v", sum.Windows)
	}
	if sum.Window("2 users") != w || sum.Window("power") != nil {
		t.Errorf("Window by label: %p and %p, want the level's %p and nil", sum.Window("2 users"), sum.Window("power"), w)
	}
	// From the samples: the samples whose values count at the window's times after its
	// first (its base) are its own; its counter rose from its value at the start to
	// that at the end, each read between the samples taken around it.
	samples, torn, err := ReadSamples(filepath.Join(dir, JSONLinesFile))
	if err != nil || torn != nil {
		t.Fatal(err, torn)
	}
	based, inside := false, 0
	for _, s := range samples {
		at := s.At()
		switch {
		case at.Before(startAt) || at.After(endAt):
		case !based:
			based = true
		default:
			inside++
		}
	}
	rise := countAt(t, samples, "count.total", endAt) - countAt(t, samples, "count.total", startAt)
	if c := w.Counters["count.total"]; math.Abs(c.Delta-rise) > 1e-6 || w.Samples != inside || inside < 2 {
		t.Errorf("window: counter rose %v over %d samples, the samples say %v over %d", c.Delta, w.Samples, rise, inside)
	}
	if sum.Run.Samples != sum.Samples-1 || sum.Run.Counters["count.total"].Delta != float64(10*(sum.Samples-1)) {
		t.Errorf("run: %d samples of %d, counter rose %v", sum.Run.Samples, sum.Samples, sum.Run.Counters["count.total"].Delta)
	}
	if st := sum.Sources[0]; st.Name != "counting" || st.Reads != sum.Samples || st.Errors != 0 {
		t.Errorf("source status %+v after %d samples", st, sum.Samples)
	}
	again, err := m.Stop()
	if again != sum || err != nil {
		t.Error("a second Stop did not return the first's summary")
	}
}

// countAt is counter name at instant x, on the straight line between the samples
// taken around it (which must be there).
func countAt(t *testing.T, samples []Sample, name string, x time.Time) float64 {
	t.Helper()
	for i := 1; i < len(samples); i++ {
		b, a := samples[i-1], samples[i]
		if !b.Time.After(x) && a.Time.After(x) {
			f := x.Sub(b.Time).Seconds() / a.Time.Sub(b.Time).Seconds()
			return b.Counters[name] + f*(a.Counters[name]-b.Counters[name])
		}
	}
	t.Fatalf("no samples around %s", x)
	return 0
}

// windowState says whether the last window labelled label has its base sample, and
// whether it has its end's (and so its summary).
func windowState(m *Monitor, label string) (based, done bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := len(m.windows) - 1; i >= 0; i-- {
		if w := m.windows[i]; w.label == label {
			return w.based, w.summary != nil
		}
	}
	return false, false
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("waited 30 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// fakeStats is an engine.StatsReader whose readings the test sets.
type fakeStats struct {
	st  engine.Stats
	err error
}

func (f *fakeStats) Catalogue() []engine.StatInfo {
	return []engine.StatInfo{{Name: "commits", Kind: engine.Counter, Unit: "transactions"},
		{Name: "buffer_hits", Kind: engine.Counter, Unit: "pages"}, {Name: "buffer_misses", Kind: engine.Counter, Unit: "pages"},
		{Name: "wait.<class>.<event>", Kind: engine.Gauge, Unit: "sessions"}}
}
func (f *fakeStats) ReadStats(context.Context) (engine.Stats, error) { return f.st, f.err }

type fakeEngine struct {
	engine.Engine
	r *fakeStats
}

func (f fakeEngine) NewStatsReader(context.Context) (engine.StatsReader, error) { return f.r, nil }

// TestEngineSource: an engine's counters become rates, its buffer's hits and misses a
// hit ratio, its gauges values, by hand.
func TestEngineSource(t *testing.T) {
	r := &fakeStats{st: engine.Stats{Counters: map[string]float64{"commits": 100, "buffer_hits": 900, "buffer_misses": 100},
		Gauges: map[string]float64{"wait.Lock.tuple": 2}}}
	src, ok, err := NewEngine(context.Background(), fakeEngine{r: r})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	read(t, src, t0)
	r.st = engine.Stats{Counters: map[string]float64{"commits": 300, "buffer_hits": 1880, "buffer_misses": 120},
		Gauges: map[string]float64{"wait.IO.DataFileRead": 3}}
	got := read(t, src, t0.Add(2*time.Second))
	// 200 commits in 2 s; 980 hits of 1000 reads; no session waits on a tuple now.
	expect(t, got.Values, map[string]float64{"engine.commits_per_s": 100, "engine.buffer_hit_pct": 98,
		"engine.wait.IO.DataFileRead": 3, "engine.wait.Lock.tuple": 0})
	// A reading that failed in part keeps what it read, and says why.
	r.err = errors.New("lock waits: access denied")
	part := newReading()
	if err := src.Read(context.Background(), t0.Add(3*time.Second), part); err == nil || part.Values["engine.wait.IO.DataFileRead"] != 3 {
		t.Errorf("a partial reading: %v, values %v", err, part.Values)
	}
	if _, ok, _ := NewEngine(context.Background(), struct{ engine.Engine }{}); ok {
		t.Error("an engine without statistics gave a source")
	}
}

// TestParseSample: --sample takes a duration of 10 ms or more, or off; 0, negative and
// too short intervals are errors naming the flag.
func TestParseSample(t *testing.T) {
	for text, want := range map[string]time.Duration{"1s": time.Second, "250ms": 250 * time.Millisecond, "off": 0, " OFF ": 0} {
		if got, err := ParseSample(text); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", text, got, err, want)
		}
	}
	for _, text := range []string{"0", "0s", "-1s", "1ms", "often", ""} {
		if _, err := ParseSample(text); err == nil || !strings.HasPrefix(err.Error(), "--sample ") {
			t.Errorf("%q: %v, want an error naming --sample", text, err)
		}
	}
}

func TestLevelUsers(t *testing.T) {
	for _, tc := range []struct {
		label string
		users int
		ok    bool
	}{{"1 user", 1, true}, {"4 users", 4, true}, {"1 users", 0, false}, {"4 user", 0, false}, {"power", 0, false},
		{"0 users", 0, false}, {"-2 users", 0, false}, {"4", 0, false}, {"04 users", 0, false}} {
		if u, ok := LevelUsers(tc.label); u != tc.users || ok != tc.ok {
			t.Errorf("LevelUsers(%q) = %d, %v; want %d, %v", tc.label, u, ok, tc.users, tc.ok)
		}
	}
	if u, ok := LevelUsers(LevelLabel(250)); u != 250 || !ok {
		t.Errorf("LevelUsers(LevelLabel(250)) = %d, %v", u, ok)
	}
}
