// Package runreporttest checks a run's report against the files it was built from,
// reading them on its own: every point of every chart is the value of its key on
// its line of metrics.jsonl or intervals.jsonl, and no line's value is left out.
//
//	rep, err := runreport.Build(dir, runreport.Options{})
//	runreporttest.CheckCharts(t, dir, rep)
package runreporttest

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"tierbench/internal/metrics"
	"tierbench/internal/report/chart"
	"tierbench/internal/runreport"
)

// line is one line of metrics.jsonl or intervals.jsonl, decoded loosely.
type line struct {
	Time     time.Time          `json:"time"`
	ElapsedS float64            `json:"elapsed_s"`
	Interval float64            `json:"interval_s"`
	Values   map[string]float64 `json:"values"`
	// Interval records' numbers.
	TPS     *float64           `json:"tps"`
	QPS     *float64           `json:"qps"`
	Errors  *float64           `json:"errors_per_s"`
	Latency map[string]float64 `json:"latency"`
}

// resultFacts are what the check needs of result.json.
type resultFacts struct {
	IntervalsFile string `json:"intervals_file"`
	Monitoring    struct {
		Start   time.Time `json:"start"`
		File    string    `json:"file"`
		Windows []struct {
			Label      string
			Start, End time.Time
		} `json:"windows"`
	} `json:"monitoring"`
	Energy struct {
		Chart *struct {
			Start  time.Time `json:"start"`
			EndS   []float64 `json:"end_s"`
			Series []struct {
				Name  string     `json:"name"`
				Watts []*float64 `json:"watts"`
			} `json:"series"`
		} `json:"chart"`
	} `json:"energy"`
}

func readResult(t testing.TB, dir string) resultFacts {
	t.Helper()
	var r resultFacts
	data, err := os.ReadFile(filepath.Join(dir, runreport.ResultFile))
	if err == nil {
		err = json.Unmarshal(data, &r)
	}
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// energyLines are the energy chart's intervals as lines: each at its end, with the
// watts of each component that covers it.
func (r resultFacts) energyLines(t testing.TB) []line {
	c := r.Energy.Chart
	if c == nil {
		return nil
	}
	var out []line
	for i, end := range c.EndS {
		l := line{Time: c.Start.Add(time.Duration(end * float64(time.Second))), Values: map[string]float64{}}
		for _, s := range c.Series {
			if i < len(s.Watts) && s.Watts[i] != nil {
				l.Values[s.Name] = *s.Watts[i]
			}
		}
		out = append(out, l)
	}
	return out
}

func readLinesIfAny(t testing.TB, path string) []line {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	return readLines(t, path)
}

// readLines reads path's lines but a torn last one, which a report leaves out too.
func readLines(t testing.TB, path string) []line {
	t.Helper()
	var out []line
	if _, err := metrics.ReadJSONLines(path, func(_ int, l *line) error {
		out = append(out, *l)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// value is key's value on l, for a chart of file.
func (l line) value(key string) (float64, bool) {
	if l.Values != nil {
		v, ok := l.Values[key]
		return v, ok
	}
	switch key {
	case "tps", "qps", "errors_per_s":
		p := map[string]*float64{"tps": l.TPS, "qps": l.QPS, "errors_per_s": l.Errors}[key]
		if p == nil {
			return 0, false
		}
		return *p, true
	}
	v, ok := l.Latency[key]
	return v, ok
}

// CheckCharts checks every chart of rep against the files in dir: each series has
// as many points as lines have its key (after a line at the x of the line before it
// is dropped, and lines are averaged in groups as Source.Group says), each at its
// line's x with its value. Time 0 is metrics.jsonl's first line's time less its
// elapsed_s; without one the monitoring section's start, intervals.jsonl's first end
// less its length, or the energy chart's start. The energy chart of result.json (a
// run without samples) is checked as lines too: one for each interval, at its end.
func CheckCharts(t testing.TB, dir string, rep *runreport.Report) {
	t.Helper()
	files := map[string][]line{}
	charts := rep.Doc.Charts()
	if len(charts) != len(rep.Sources) {
		t.Errorf("the report has %d charts and %d sources", len(charts), len(rep.Sources))
	}
	for _, c := range charts {
		src, ok := rep.Sources[c.Name]
		if !ok {
			t.Errorf("chart %s has no source", c.Name)
			continue
		}
		if files[src.File] == nil && src.File != runreport.ResultFile {
			files[src.File] = readLines(t, filepath.Join(dir, src.File))
		}
	}
	res := readResult(t, dir)
	origin := res.Monitoring.Start
	if res.Monitoring.File != "" {
		if lines := readLinesIfAny(t, filepath.Join(dir, res.Monitoring.File)); len(lines) > 0 {
			origin = lines[0].Time.Add(-time.Duration(lines[0].ElapsedS * float64(time.Second)))
		}
	}
	if origin.IsZero() && res.IntervalsFile != "" {
		if lines := readLinesIfAny(t, filepath.Join(dir, res.IntervalsFile)); len(lines) > 0 {
			origin = lines[0].Time.Add(-time.Duration(lines[0].Interval * float64(time.Second)))
		}
	}
	if origin.IsZero() && res.Energy.Chart != nil {
		origin = res.Energy.Chart.Start
	}
	files[runreport.ResultFile] = res.energyLines(t)
	for _, c := range charts {
		src := rep.Sources[c.Name]
		if len(src.Keys) != len(c.Series) {
			t.Errorf("chart %s: %d series, %d keys", c.Name, len(c.Series), len(src.Keys))
			continue
		}
		type xy struct{ x, y float64 }
		var kept []line
		var xs []float64
		for _, l := range files[src.File] {
			x := l.ElapsedS
			if l.Values == nil || src.File == runreport.ResultFile {
				x = math.Round(l.Time.Sub(origin).Seconds()*1000) / 1000
			}
			if len(xs) > 0 && x <= xs[len(xs)-1] {
				continue
			}
			kept, xs = append(kept, l), append(xs, x)
		}
		group := max(src.Group, 1)
		for si, key := range src.Keys {
			scale := 1.0
			if si < len(src.Scales) && src.Scales[si] != 0 {
				scale = src.Scales[si]
			}
			var want []xy
			for i := 0; i < len(kept); i += group {
				sum, n := 0.0, 0
				end := min(i+group, len(kept))
				for _, l := range kept[i:end] {
					if v, ok := l.value(key); ok {
						sum += v
						n++
					}
				}
				if n > 0 {
					want = append(want, xy{xs[end-1], sum / float64(n) * scale})
				}
			}
			got := c.Series[si].Points
			if len(got) != len(want) {
				t.Errorf("chart %s, series %q (%s): %d points, %s has %d", c.Name, c.Series[si].Name, key, len(got), src.File, len(want))
				continue
			}
			for i, p := range got {
				if p.X != want[i].x || !close(p.Y, want[i].y) {
					t.Errorf("chart %s, series %q (%s), point %d: (%v, %v), %s says (%v, %v)", c.Name, c.Series[si].Name, key, i, p.X, p.Y, src.File, want[i].x, want[i].y)
					break
				}
			}
		}
		// the bands behind the lines: result.json's measured windows, in its order
		var wantWindows []chart.Window
		for _, w := range res.Monitoring.Windows {
			at := func(t time.Time) float64 { return math.Round(t.Sub(origin).Seconds()*1000) / 1000 }
			wantWindows = append(wantWindows, chart.Window{Label: w.Label, From: at(w.Start), To: at(w.End)})
		}
		if !slices.Equal(c.Windows, wantWindows) {
			t.Errorf("chart %s: windows %v, result.json's are %v", c.Name, c.Windows, wantWindows)
		}
		if err := c.Validate(); err != nil {
			t.Error(err)
		}
	}
}

// close compares a mean computed in another order: equal to 1e-12 relative.
func close(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}
