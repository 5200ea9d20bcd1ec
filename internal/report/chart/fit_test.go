package chart

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"tierbench/internal/report/quantity"
)

// barHeights are the heights of series si's bars in svg, in points.
func barHeights(t *testing.T, svg []byte, si int) []float64 {
	t.Helper()
	_, bars := count(seriesPaths(t, svg), si, MarkBar)
	var out []float64
	for _, b := range bars {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range b.pts {
			lo, hi = math.Min(lo, v[1]), math.Max(hi, v[1])
		}
		out = append(out, hi-lo)
	}
	return out
}

var textLengthRE = regexp.MustCompile(`textLength="([0-9.e+-]+)"`)

// TestLongLabels: a 300-character category or series name, which a study accepts as
// a level's label, is cut in the middle to fit; the data keep the full text, and the
// data area keeps its size: the bars are as high as with short labels, and no text is
// wider than the canvas.
func TestLongLabels(t *testing.T) {
	long := strings.Repeat("x", 290) + "-placement"
	bars := func(cat string) *Chart {
		return NewBars("tps", "TPS per placement", []string{cat, "short"}, Axis{Label: "placement"}, Axis{Label: "TPS", Unit: "tx/s"}, false).
			AddValues(long+" series", 100, 200).AddValues("other", 150, 50)
	}
	short, err := bars("I").SVG(DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	c := bars(long)
	svg, err := c.SVG(DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	checkMarks(t, c, seriesPaths(t, svg))
	want, got := barHeights(t, short, 0), barHeights(t, svg, 0)
	if len(got) != 2 || got[1] < 0.4*DefaultSize.Height*72 || math.Abs(got[1]-want[1]) > 0.35*want[1] {
		t.Errorf("bar heights with a 300-character label %v, with a short one %v: the data area collapsed", got, want)
	}
	for _, m := range textLengthRE.FindAllSubmatch(svg, -1) {
		if w, _ := strconv.ParseFloat(string(m[1]), 64); w > DefaultSize.Width*72 {
			t.Errorf("a text %g pt wide on a %g pt canvas", w, DefaultSize.Width*72)
		}
	}
	for _, want := range []string{"-placement<", "-placement series<", "…"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("the cut labels do not keep their end %q", want)
		}
	}
	if c.Categories[0] != long || c.Data().Rows[0].X != long {
		t.Error("the chart's data lost the full label")
	}

	line := New(Line, "tps-vs-users", "TPS vs users", usersAxis(), tpsAxis()).
		Add(long, XY(1, 10), XY(2, 20)).Add("short", XY(1, 5), XY(2, 6))
	svg, err = line.SVG(DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	checkMarks(t, line, seriesPaths(t, svg))
	for _, m := range textLengthRE.FindAllSubmatch(svg, -1) {
		if w, _ := strconv.ParseFloat(string(m[1]), 64); w > DefaultSize.Width*72 {
			t.Errorf("line chart: a text %g pt wide on a %g pt canvas", w, DefaultSize.Width*72)
		}
	}
}

func TestFit(t *testing.T) {
	p := New(Line, "x", "x", Axis{}, Axis{}).Add("s", XY(0, 1))
	pl, _ := p.plot(400, 300)
	style := pl.X.Tick.Label
	for _, tc := range []struct {
		text string
		max  vg.Length
	}{
		{"short", 200},
		{strings.Repeat("a", 100) + "END", 100},
		{"αβγδεζηθικλμνξοπρστυφχψω", 40}, // runes, not bytes
		{"abc", 1}, // nothing fits: the ellipsis alone
	} {
		got := fit(style, tc.text, tc.max)
		switch {
		case style.Width(tc.text) <= tc.max:
			if got != tc.text {
				t.Errorf("%q fits but became %q", tc.text, got)
			}
		case got == ellipsis:
		case style.Width(got) > tc.max || !strings.Contains(got, ellipsis) || got[:1] != tc.text[:1] ||
			!strings.HasSuffix(tc.text, strings.SplitN(got, ellipsis, 2)[1]):
			t.Errorf("fit(%q, %v) = %q (%v wide): want its start and end around an ellipsis, within the width", tc.text, tc.max, got, style.Width(got))
		}
	}
}

// TestLonePoint: a time series of one point (a run of one report interval) draws it
// as a marker; it has no line to draw.
func TestLonePoint(t *testing.T) {
	c := New(TimeSeries, "throughput", "Throughput", Axis{Label: "time", Unit: "s"}, tpsAxis()).
		Add("transactions", XY(2, 1469)).Add("errors", XY(2, 0))
	svg, err := c.SVG(DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	paths := seriesPaths(t, svg)
	checkMarks(t, c, paths)
	for si := range c.Series {
		if n, _ := count(paths, si, MarkPoint); n != 1 {
			t.Errorf("series %d: %d markers, want 1", si, n)
		}
	}
	// A stacked area of one x has no width: a marker at each series' top.
	a := New(StackedArea, "watts", "Watts", Axis{Label: "time", Unit: "s"}, Axis{Label: "power", Unit: "W"}).
		Add("cpu", XY(2, 10)).Add("dram", XY(2, 3))
	svg, err = a.SVG(DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	paths = seriesPaths(t, svg)
	checkMarks(t, a, paths)
	if n, _ := count(paths, 1, MarkPoint); n != 1 {
		t.Errorf("a stacked area of one x: %d markers for its second series, want 1", n)
	}
}

// TestIntegerTicks: an axis of whole numbers (users 1 and 2) has ticks at whole
// numbers only, where the plain ticks would put 1.2, 1.4...
func TestIntegerTicks(t *testing.T) {
	labels := func(tk []plot.Tick) string {
		var out []string
		for _, t := range tk {
			if t.Label != "" {
				out = append(out, t.Label)
			}
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		min, max float64
		want     string
	}{
		{1, 2, "1 2"},
		{1, 4, "1 2 3 4"},
		{0.9, 1.1, "1"}, // one whole number in range
	} {
		if got := labels(integerTicks{plainTicks{}}.Ticks(tc.min, tc.max)); got != tc.want {
			t.Errorf("integer ticks over %v..%v: %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
	// Where the plain ticks are whole already, the same.
	for _, r := range [][2]float64{{2, 64}, {1, 100}, {5, 2000}} {
		if got, want := labels(integerTicks{plainTicks{}}.Ticks(r[0], r[1])), labels(plainTicks{}.Ticks(r[0], r[1])); got != want {
			t.Errorf("integer ticks over %v: %q, the plain ticks %q", r, got, want)
		}
	}
	if got := labels(plainTicks{}.Ticks(1, 2)); !strings.Contains(got, ".") {
		t.Errorf("plain ticks over 1..2 are %q: the test does not test", got)
	}
	// On a log axis: 1, 2, 5, 10, 20 but never 0.5.
	if got := labels(integerTicks{logTicks{}}.Ticks(0.5, 20)); got != "1 2 5 10 20" {
		t.Errorf("integer log ticks over 0.5..20: %q", got)
	}
	// given ticks: only those, only in range
	g := givenTicks{{1, "1 / 8MB"}, {4, "4 / 64MB"}, {9, "9 / 1GB"}}
	if got := labels(g.Ticks(0.5, 5)); got != "1 / 8MB 4 / 64MB" {
		t.Errorf("given ticks: %q", got)
	}
}

// TestAxisRange: an axis of a share stops at 100% (no headroom past it), unless the
// data pass it; an error bar outside its quantity's range is refused, unless its
// value is outside too.
func TestAxisRange(t *testing.T) {
	busy := Axis{Label: "busy", Unit: "%"}
	c := NewBars("util", "Utilisation", []string{"a", "b"}, Axis{Label: "cell"}, busy, false).AddValues("util", 100, 60)
	p, _ := c.plot(400, 300)
	if p.Y.Max != 100 {
		t.Errorf("a share's axis ends at %v, want 100", p.Y.Max)
	}
	c = NewBars("util", "Utilisation", []string{"a", "b"}, Axis{Label: "cell"}, busy, false).AddValues("util", 100.2, 60)
	if p, _ := c.plot(400, 300); p.Y.Max < 100.2 {
		t.Errorf("a share measured at 100.2 is cut by the axis at %v", p.Y.Max)
	}
	tps := NewBars("tps", "TPS", []string{"a"}, Axis{Label: "cell"}, tpsAxis(), false).AddValues("tps", 100)
	if p, _ := tps.plot(400, 300); p.Y.Max != 105 {
		t.Errorf("an unbounded quantity's axis ends at %v, want 105 (5%% headroom)", p.Y.Max)
	}
	for _, tc := range []struct {
		name string
		y    Axis
		p    Point
		want string
	}{
		{"CPU busy 199%", busy, XYCI(0, 79.5, 0, 199), "leaves the range of busy (%) (0 to 100)"},
		{"negative TPS", tpsAxis(), XYCI(0, 175, -142.7, 492.7), "leaves the range of throughput (tx/s) (0 or more)"},
		{"own range", Axis{Label: "x", Range: &quantity.Range{Min: 10, Max: 20}}, XYCI(0, 15, 9, 16), "(10 to 20)"},
	} {
		c := NewBars("c", "C", []string{"a"}, Axis{Label: "cell"}, tc.y, false).Add("s", tc.p)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	outside := NewBars("c", "C", []string{"a"}, Axis{Label: "cell"}, busy, false).Add("s", XYCI(0, 100.1, 97.5, 100.1))
	if err := outside.Validate(); err != nil {
		t.Errorf("a value outside its range with its interval: %v", err)
	}
}

func TestAxisTitle(t *testing.T) {
	for _, tc := range []struct {
		a    Axis
		want string
	}{
		{Axis{Label: "TPS", Unit: "transactions/s"}, "TPS (transactions/s)"},
		{Axis{Label: "QphH@Size", Unit: "QphH@Size"}, "QphH@Size"},
		{Axis{Label: "QphH@Size, unrounded", Unit: "QphH@Size"}, "QphH@Size, unrounded"},
		{Axis{Label: "start", Unit: "s"}, "start (s)"},
		{Axis{Label: "users"}, "users"},
	} {
		if got := tc.a.Title(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.a, got, tc.want)
		}
	}
}
