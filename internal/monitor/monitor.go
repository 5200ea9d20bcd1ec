package monitor

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The files a monitor writes in its directory.
const (
	JSONLinesFile = "metrics.jsonl"
	CSVFile       = "metrics.csv"
)

// DefaultInterval is how often the monitor samples unless told otherwise (--sample).
const DefaultInterval = time.Second

// MinInterval is the shortest interval a run may sample at: each sample reads /proc,
// /sys and the engine's statistics views, which faster would cost what it measures.
const MinInterval = 10 * time.Millisecond

// ParseSample reads --sample: a duration of MinInterval or more, or "off" (0).
func ParseSample(text string) (time.Duration, error) {
	t := strings.TrimSpace(text)
	if strings.EqualFold(t, "off") {
		return 0, nil
	}
	d, err := time.ParseDuration(t)
	switch {
	case err != nil:
		return 0, fmt.Errorf("--sample %q: give how often to sample, such as 1s or 500ms, or off", text)
	case d <= 0:
		return 0, fmt.Errorf("--sample %s: give how often to sample, above 0, such as 1s or 500ms, or off to sample nothing", text)
	case d < MinInterval:
		return 0, fmt.Errorf("--sample %s: sample at most every %s (each sample reads /proc, /sys and the engine), or off", text, MinInterval)
	}
	return d, nil
}

// Sample is one line of metrics.jsonl: the values and counters every source read at
// Time.
type Sample struct {
	Time time.Time `json:"time"`
	// ElapsedS is Time in seconds since the monitor's first sample.
	ElapsedS float64 `json:"elapsed_s"`
	// Mark names the window edge the sample was taken for ("start 4 users"), and
	// MarkTime is that edge's time: windows count the sample's values as taken then,
	// and read its counters at MarkTime by interpolation (counters.go).
	Mark     string     `json:"mark,omitempty"`
	MarkTime *time.Time `json:"mark_time,omitempty"`
	// Values are levels, or rates and shares over the time since their source's
	// previous reading; Counters are cumulative (counters.go says which).
	Values   map[string]float64 `json:"values"`
	Counters map[string]float64 `json:"counters,omitempty"`
	// Errors are the sources that failed this sample, with why.
	Errors map[string]string `json:"errors,omitempty"`
}

// At is the time windows count the sample's values at: its mark's, else when it was
// taken.
func (s *Sample) At() time.Time {
	if s.MarkTime != nil {
		return *s.MarkTime
	}
	return s.Time
}

// Config describes a monitor.
type Config struct {
	// Interval is the time between samples (--sample); it must be above 0.
	Interval time.Duration
	// Dir receives metrics.jsonl while the monitor runs and metrics.csv when it stops;
	// "" writes no files (the summary is kept all the same). Prefix begins their names
	// (a load's "load-": load-metrics.jsonl).
	Dir     string
	Prefix  string
	Sources []Source
	// NotSampled are sources the caller could not set up, and why (an engine too old
	// for its statistics views); the summary lists them.
	NotSampled []Unavailable
	// Timeout bounds one sample's reading of its sources (default: the interval, and
	// at least 2 s): a source that takes longer is left out of that sample.
	Timeout time.Duration
	// OnSample, when set, is called with each sample once its sources are read and
	// before it is written, from the goroutine that samples: it may add values of its
	// own (the energy recorder's watts), which Derived documents; NaN and infinities
	// are left out. It must return quickly.
	OnSample func(s *Sample)
	Derived  []SeriesInfo
}

// SourceStatus says how a source fared over the run.
type SourceStatus struct {
	Name string `json:"name"`
	// Reads counts its successful readings, Errors its failed ones (FirstError says why
	// the first failed).
	Reads       int           `json:"reads"`
	Errors      int           `json:"errors"`
	FirstError  string        `json:"first_error,omitempty"`
	Unavailable []Unavailable `json:"unavailable,omitempty"`
}

// mark is a window edge to take a sample for.
type mark struct {
	name string
	at   time.Time
}

// Monitor samples its sources from Start to Stop.
type Monitor struct {
	cfg       Config
	catalogue []SeriesInfo
	file      *os.File
	out       *bufio.Writer
	enc       *json.Encoder

	marks    chan mark
	quit     chan struct{}
	done     chan struct{}
	ctx      context.Context
	cancel   context.CancelFunc
	stopOnce sync.Once
	summary  *Summary
	stopErr  error

	writeErr error // of metrics.jsonl; only the goroutine taking samples touches it

	mu       sync.Mutex // guards what follows
	start    time.Time
	latest   *Sample
	samples  int
	statuses []*SourceStatus
	trail    trail
	run      *window
	windows  []*window
}

// New checks cfg and opens metrics.jsonl; Start begins sampling.
func New(cfg Config) (*Monitor, error) {
	if cfg.Interval <= 0 {
		return nil, fmt.Errorf("--sample %s: give how often to sample, above 0, such as 1s or 500ms", cfg.Interval)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = max(cfg.Interval, 2*time.Second)
	}
	m := &Monitor{cfg: cfg, marks: make(chan mark, 16), quit: make(chan struct{}), done: make(chan struct{})}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	for _, src := range cfg.Sources {
		m.catalogue = append(m.catalogue, src.Series()...)
		st := &SourceStatus{Name: src.Name()}
		if l, ok := src.(Limited); ok {
			st.Unavailable = l.Unavailable()
		}
		m.statuses = append(m.statuses, st)
	}
	m.catalogue = append(m.catalogue, cfg.Derived...)
	m.catalogue = append(m.catalogue, monitorSeries...)
	if cfg.Dir != "" {
		f, err := os.Create(filepath.Join(cfg.Dir, cfg.Prefix+JSONLinesFile))
		if err != nil {
			return nil, fmt.Errorf("monitor: %w", err)
		}
		m.file, m.out = f, bufio.NewWriter(f)
		m.enc = json.NewEncoder(m.out)
	}
	return m, nil
}

var monitorSeries = []SeriesInfo{
	value("monitor.sample_ms", "ms", "wall-clock time the sample took, all sources read in parallel"),
	value("monitor.<source>.read_ms", "ms", "wall-clock time one source took to read"),
}

// Catalogue documents every series the monitor's sources may write.
func (m *Monitor) Catalogue() []SeriesInfo { return m.catalogue }

// Start takes the first sample, the base of every rate, and samples every interval
// from then on until Stop.
func (m *Monitor) Start() {
	m.take(nil)
	m.mu.Lock()
	m.run = &window{label: "run", start: m.start}
	m.run.add(m.latest)
	m.mu.Unlock()
	go m.loop()
}

func (m *Monitor) loop() {
	defer close(m.done)
	t := time.NewTicker(m.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-m.quit:
			return
		case mk := <-m.marks:
			m.take(&mk)
		case <-t.C:
			m.take(nil)
		}
	}
}

// BeginWindow marks the start of a measured window at at: a sample is taken for it at
// once, and the window's summary covers the samples from there to EndWindow's, its
// counters from at itself (counters.go). users is the level of users it measures (0:
// not a level).
func (m *Monitor) BeginWindow(label string, users int, at time.Time) {
	m.mu.Lock()
	w := &window{label: label, users: users, start: at}
	// Samples taken since at (the caller was slow to get here) are counted now.
	for _, p := range m.trail.points {
		w.count(&m.trail, p)
	}
	m.windows = append(m.windows, w)
	m.mu.Unlock()
	m.requestMark("start "+label, at)
}

// EndWindow marks the end at at of the last window begun with label.
func (m *Monitor) EndWindow(label string, at time.Time) {
	m.mu.Lock()
	for i := len(m.windows) - 1; i >= 0; i-- {
		if w := m.windows[i]; w.label == label && !w.ended {
			w.end, w.ended = at, true
			if p := m.trail.points; len(p) > 0 && p[len(p)-1].at.After(at) {
				w.close(&m.trail) // a sample after the end is here already
			}
			break
		}
	}
	m.mu.Unlock()
	m.requestMark("end "+label, at)
}

func (m *Monitor) requestMark(name string, at time.Time) {
	select {
	case m.marks <- mark{name: name, at: at}:
	default: // a burst of marks: the next tick serves
	}
}

// LevelLabel is the label of the window of a level of users ("4 users").
func LevelLabel(users int) string {
	if users == 1 {
		return "1 user"
	}
	return fmt.Sprintf("%d users", users)
}

// LevelUsers is the users of a level's window label (LevelLabel's inverse); ok false
// for a window that is not a level ("power").
func LevelUsers(label string) (users int, ok bool) {
	n, rest, found := strings.Cut(label, " ")
	u, err := strconv.Atoi(n)
	if !found || err != nil || u < 1 || label != LevelLabel(u) || rest == "" {
		return 0, false
	}
	return u, true
}

// Mark begins (start) or ends the window label at at: the run lifecycle passes the
// workload's marks (workload.Env.Mark) here. A level's label ("4 users") makes the
// window that level's (Summary.Level).
func (m *Monitor) Mark(label string, start bool, at time.Time) {
	if start {
		users, _ := LevelUsers(label)
		m.BeginWindow(label, users, at)
	} else {
		m.EndWindow(label, at)
	}
}

// Latest is the last sample (nil before Start); it is not changed afterwards.
func (m *Monitor) Latest() *Sample {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.latest
}

// take reads every source in parallel and records the sample.
func (m *Monitor) take(mk *mark) {
	now := time.Now()
	ctx, cancel := context.WithTimeout(m.ctx, m.cfg.Timeout)
	defer cancel()
	readings := make([]*Reading, len(m.cfg.Sources))
	errs := make([]error, len(m.cfg.Sources))
	took := make([]time.Duration, len(m.cfg.Sources))
	var wg sync.WaitGroup
	for i, src := range m.cfg.Sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			readings[i] = newReading()
			errs[i] = src.Read(ctx, now, readings[i])
			took[i] = time.Since(t0)
		}()
	}
	wg.Wait()
	s := &Sample{Time: now.UTC(), Values: map[string]float64{}, Counters: map[string]float64{}}
	if mk != nil {
		at := mk.at.UTC()
		s.Mark, s.MarkTime = mk.name, &at
	}
	for i, r := range readings {
		for k, v := range r.Values {
			s.Values[k] = round3(v)
		}
		for k, v := range r.Counters {
			s.Counters[k] = math.Round(v*1e6) / 1e6 // sums of seconds carry float noise
		}
		s.Values["monitor."+m.cfg.Sources[i].Name()+".read_ms"] = round3(float64(took[i].Microseconds()) / 1000)
		if errs[i] != nil {
			if s.Errors == nil {
				s.Errors = map[string]string{}
			}
			s.Errors[m.cfg.Sources[i].Name()] = errs[i].Error()
		}
	}
	if m.cfg.OnSample != nil {
		m.cfg.OnSample(s)
		// As a source's NaN is left out (Reading.Value), so is one OnSample added: a
		// value JSON cannot hold would fail this sample's line and stop the file.
		for k, v := range s.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				delete(s.Values, k)
			}
		}
	}
	s.Values["monitor.sample_ms"] = round3(float64(time.Since(now).Microseconds()) / 1000)

	m.mu.Lock()
	if m.start.IsZero() {
		m.start = now
	}
	s.ElapsedS = round3(now.Sub(m.start).Seconds())
	m.mu.Unlock()
	// The file is written outside the lock, so that a slow disk never holds up the
	// runner's window marks; only one sample is taken at a time.
	if m.enc != nil && m.writeErr == nil {
		if err := m.enc.Encode(s); err != nil {
			m.writeErr = err
		} else if err := m.out.Flush(); err != nil {
			m.writeErr = err
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, st := range m.statuses {
		if errs[i] == nil {
			st.Reads++
			continue
		}
		st.Errors++
		if st.FirstError == "" {
			st.FirstError = errs[i].Error()
		}
	}
	m.record(s)
}

// record shows sample s to every window; m.mu is held.
func (m *Monitor) record(s *Sample) {
	m.samples++
	m.latest = s
	p := m.trail.add(s)
	if m.run != nil {
		m.run.take(s, &m.trail, p)
	}
	for _, w := range m.windows {
		w.take(s, &m.trail, p)
		if w.ended && s.Mark == "end "+w.label && w.summary == nil {
			w.finish(&m.trail) // its end's own sample: the summary is ready at once
		}
	}
}

// Stop takes a last sample, stops sampling, writes metrics.csv and returns the
// summary: the whole run's and each window's. Safe to call more than once. An error
// (a file that could not be written) comes with the summary.
func (m *Monitor) Stop() (*Summary, error) {
	m.stopOnce.Do(func() {
		if m.run == nil { // never started
			m.summary = m.summarize(time.Now())
			m.stopErr = m.closeFiles()
			return
		}
		close(m.quit)
		<-m.done
		m.take(&mark{name: "stop", at: time.Now()})
		m.cancel()
		end := m.Latest().Time
		m.summary = m.summarize(end)
		m.stopErr = m.closeFiles()
		if m.stopErr == nil && m.cfg.Dir != "" {
			// The monitor closed the file whole: a torn line in it was written by
			// something else, and is an error here.
			torn, err := WriteCSV(filepath.Join(m.cfg.Dir, m.cfg.Prefix+JSONLinesFile), filepath.Join(m.cfg.Dir, m.cfg.Prefix+CSVFile))
			if m.stopErr = err; err == nil && torn != nil {
				m.stopErr = fmt.Errorf("monitor: %s", torn)
			}
		}
	})
	return m.summary, m.stopErr
}

// closeFiles runs once sampling has stopped.
func (m *Monitor) closeFiles() error {
	if m.file == nil {
		return m.writeErr
	}
	// The first failure is the cause: a failed write fails the flush and sync after it
	// with the same message, which errors.Join would print once per line.
	var err error
	for _, e := range []error{m.writeErr, m.out.Flush(), m.file.Sync(), m.file.Close()} {
		if err == nil {
			err = e
		}
	}
	m.file = nil
	if err != nil {
		return fmt.Errorf("monitor: %s: %w", filepath.Join(m.cfg.Dir, m.cfg.Prefix+JSONLinesFile), err)
	}
	return nil
}

// summarize closes every window (one still open ends at end) and gathers the summary.
func (m *Monitor) summarize(end time.Time) *Summary {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := &Summary{IntervalS: m.cfg.Interval.Seconds(), Samples: m.samples, Start: m.start.UTC(), End: end.UTC(), Series: m.catalogue,
		NotSampled: m.cfg.NotSampled}
	if m.cfg.Dir != "" {
		s.File, s.CSVFile = m.cfg.Prefix+JSONLinesFile, m.cfg.Prefix+CSVFile
	}
	for i, st := range m.statuses {
		s.Sources = append(s.Sources, *st)
		if p, ok := m.cfg.Sources[i].(*Storage); ok {
			s.Storage = append(s.Storage, p.Placements()...)
		}
	}
	if m.run != nil {
		m.run.end, m.run.ended = end, true
		s.Run = m.run.finish(&m.trail)
	}
	for _, w := range m.windows {
		if !w.ended {
			w.end, w.ended, w.cut = end, true, true
		}
		s.Windows = append(s.Windows, *w.finish(&m.trail))
	}
	return s
}

func round3(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return math.Round(v*1000) / 1000
}
