// Package runreporttest checks a run's report against the files it was built from,
// reading them on its own: every point of every chart is the value of its key on
// its line of metrics.jsonl or intervals.jsonl, and no line's value is left out.
//
//	rep, err := runreport.Build(dir, runreport.Options{})
//	runreporttest.CheckCharts(t, dir, rep)
package runreporttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

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

func readLines(t testing.TB, path string) []line {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []line
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for n := 1; sc.Scan(); n++ {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s, line %d: %v", path, n, err)
		}
		out = append(out, l)
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
// elapsed_s, without one intervals.jsonl's first end less its length.
func CheckCharts(t testing.TB, dir string, rep *runreport.Report) {
	t.Helper()
	files := map[string][]line{}
	var origin time.Time
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
		if files[src.File] == nil {
			files[src.File] = readLines(t, filepath.Join(dir, src.File))
		}
	}
	for _, lines := range files {
		if len(lines) > 0 && lines[0].Values != nil {
			origin = lines[0].Time.Add(-time.Duration(lines[0].ElapsedS * float64(time.Second)))
		}
	}
	for _, lines := range files {
		if len(lines) > 0 && lines[0].Values == nil && origin.IsZero() {
			origin = lines[0].Time.Add(-time.Duration(lines[0].Interval * float64(time.Second)))
		}
	}
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
			if l.Values == nil {
				x = math.Round(l.Time.Sub(origin).Seconds()*1000) / 1000
			}
			if len(xs) > 0 && x <= xs[len(xs)-1] {
				continue
			}
			kept, xs = append(kept, l), append(xs, x)
		}
		group := max(src.Group, 1)
		for si, key := range src.Keys {
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
					want = append(want, xy{xs[end-1], sum / float64(n)})
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
		if err := c.Validate(); err != nil {
			t.Error(err)
		}
	}
}

// close compares a mean computed in another order: equal to 1e-12 relative.
func close(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}
