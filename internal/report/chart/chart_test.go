package chart

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/png"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// drawnPath is one <path> of a series in a rendered SVG.
type drawnPath struct {
	series int
	mark   Mark
	pts    [][2]float64 // the M and L vertices
}

var (
	pathRE   = regexp.MustCompile(`<path data-series="(\d+)" data-mark="([a-z]+)" d="([^"]*)"`)
	vertexRE = regexp.MustCompile(`[ML](-?[0-9.e+-]+),(-?[0-9.e+-]+)`)
)

// seriesPaths parses the tagged paths of svg, and checks that it is well-formed XML.
func seriesPaths(t *testing.T, svg []byte) []drawnPath {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		if _, err := dec.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("the SVG is not well-formed XML: %v", err)
			}
			break
		}
	}
	var out []drawnPath
	for _, m := range pathRE.FindAllSubmatch(svg, -1) {
		si, _ := strconv.Atoi(string(m[1]))
		p := drawnPath{series: si, mark: Mark(m[2])}
		for _, v := range vertexRE.FindAllSubmatch(m[3], -1) {
			x, _ := strconv.ParseFloat(string(v[1]), 64)
			y, _ := strconv.ParseFloat(string(v[2]), 64)
			p.pts = append(p.pts, [2]float64{x, y})
		}
		out = append(out, p)
	}
	return out
}

func count(paths []drawnPath, series int, mark Mark) (n int, found []drawnPath) {
	for _, p := range paths {
		if p.series == series && p.mark == mark {
			n++
			found = append(found, p)
		}
	}
	return n, found
}

// checkMarks compares the marks each series drew with ExpectedMarks.
func checkMarks(t *testing.T, c *Chart, paths []drawnPath) {
	t.Helper()
	got := map[SeriesMark]int{}
	for _, p := range paths {
		got[SeriesMark{p.series, p.mark}]++
	}
	for _, d := range c.MarkDifferences(got) {
		t.Error(d)
	}
}

func usersAxis() Axis { return Axis{Label: "users"} }
func tpsAxis() Axis   { return Axis{Label: "throughput", Unit: "tx/s"} }

func sampleLine() *Chart {
	c := New(Line, "tps-vs-users", "TPS vs users per device", usersAxis(), tpsAxis())
	c.Add("hdd-7200", XYCI(1, 100, 90, 110), XYCI(2, 180, 170, 195), XYCI(4, 250, 230, 260), XYCI(8, 260, 240, 280))
	c.Add("sata-ssd", XY(1, 300), XY(2, 590), XY(4, 1100), XY(8, 1500))
	c.Add("nvme", XY(2, 900), XY(4, 1700), XY(16, 2600))
	return c
}

// TestLineSVG checks that each series of a line chart is drawn as one path through
// exactly its points: the path's vertices map back to the series' values through one
// linear transform per axis, shared by all series.
func TestLineSVG(t *testing.T) {
	c := sampleLine()
	svg, err := c.SVG(DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	paths := seriesPaths(t, svg)
	checkMarks(t, c, paths)
	// The transform from the first series' first and last points.
	n, lines := count(paths, 0, MarkLine)
	if n != 1 {
		t.Fatalf("series 0: %d line paths, want 1", n)
	}
	s0 := c.Series[0].Points
	v0 := lines[0].pts
	ax := (v0[len(v0)-1][0] - v0[0][0]) / (s0[len(s0)-1].X - s0[0].X)
	bx := v0[0][0] - ax*s0[0].X
	ay := (v0[len(v0)-1][1] - v0[0][1]) / (s0[len(s0)-1].Y - s0[0].Y)
	by := v0[0][1] - ay*s0[0].Y
	for si, s := range c.Series {
		n, lines := count(paths, si, MarkLine)
		if n != 1 {
			t.Fatalf("series %d: %d line paths, want 1", si, n)
		}
		if len(lines[0].pts) != len(s.Points) {
			t.Fatalf("series %d: line has %d vertices, want %d", si, len(lines[0].pts), len(s.Points))
		}
		for i, v := range lines[0].pts {
			// SVG coordinates have 5 significant digits: 0.05 pt at most.
			x, y := (v[0]-bx)/ax, (v[1]-by)/ay
			if math.Abs(x-s.Points[i].X) > 0.05/ax || math.Abs(y-s.Points[i].Y) > 0.05/ay {
				t.Errorf("series %d point %d drawn at (%g, %g), want (%g, %g)", si, i, x, y, s.Points[i].X, s.Points[i].Y)
			}
		}
		if n, _ := count(paths, si, MarkPoint); n != len(s.Points) {
			t.Errorf("series %d: %d markers, want %d", si, n, len(s.Points))
		}
		wantCI := 0
		for _, p := range s.Points {
			if p.HasCI() {
				wantCI++
			}
		}
		n, bars := count(paths, si, MarkCI)
		if n != wantCI {
			t.Errorf("series %d: %d error bars, want %d", si, n, wantCI)
		}
		for i, b := range bars {
			// low cap (2 vertices), bar (2), high cap (2): the bar's ends are the interval.
			lo, hi := (b.pts[2][1]-by)/ay, (b.pts[3][1]-by)/ay
			p := s.Points[i]
			if math.Abs(lo-*p.Low) > 0.05/ay || math.Abs(hi-*p.High) > 0.05/ay {
				t.Errorf("series %d error bar %d spans %g..%g, want %g..%g", si, i, lo, hi, *p.Low, *p.High)
			}
		}
		if n, _ := count(paths, si, MarkLegend); n != 2 {
			t.Errorf("series %d: %d legend marks, want 2 (line and marker)", si, n)
		}
	}
	if n, _ := count(paths, len(c.Series), MarkLine); n != 0 {
		t.Errorf("a line for a series that does not exist")
	}
}

// TestBarSVG checks grouped bars: one bar per point (none for a missing cell),
// heights in proportion to the values, and the error bars.
func TestBarSVG(t *testing.T) {
	c := NewBars("tpm", "TPM per placement per engine", []string{"I", "II", "III", "IV"},
		Axis{Label: "placement"}, Axis{Label: "TPM", Unit: "tx/min"}, false)
	c.Add("sqlite", XYCI(0, 1000, 900, 1100), XYCI(1, 1200, 1100, 1300), XYCI(3, 900, 850, 950))
	c.AddValues("postgres", 3000, 3500, 3900, 2000)
	c.AddValues("mariadb", 2500, math.NaN(), 2700, 2800)
	svg, err := c.SVG(DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	paths := seriesPaths(t, svg)
	checkMarks(t, c, paths)
	var scale float64 // points per tx/min, from the first bar
	for si, s := range c.Series {
		n, bars := count(paths, si, MarkBar)
		if n != len(s.Points) {
			t.Fatalf("series %d: %d bars, want %d", si, n, len(s.Points))
		}
		for i, b := range bars {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range b.pts {
				lo, hi = math.Min(lo, v[1]), math.Max(hi, v[1])
			}
			if scale == 0 {
				scale = (hi - lo) / s.Points[i].Y
			}
			if got := (hi - lo) / scale; math.Abs(got-s.Points[i].Y) > 0.1/scale {
				t.Errorf("series %d bar %d is %g high, want %g", si, i, got, s.Points[i].Y)
			}
		}
	}
	if n, _ := count(paths, 0, MarkCI); n != 3 {
		t.Errorf("%d error bars, want 3", n)
	}
	if n, _ := count(paths, 2, MarkBar); n != 3 {
		t.Errorf("mariadb: %d bars, want 3 (category II has no value)", n)
	}
}

// TestStackedSVG checks that stacked bars sit on each other and areas are one per series.
func TestStackedSVG(t *testing.T) {
	c := NewBars("energy", "Energy per cell", []string{"hdd", "ssd"}, Axis{Label: "storage"}, Axis{Label: "energy", Unit: "J"}, true)
	c.AddValues("device", 500, 100).AddValues("cpu", 300, 250)
	svg, err := c.SVG(DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	paths := seriesPaths(t, svg)
	checkMarks(t, c, paths)
	_, dev := count(paths, 0, MarkBar)
	_, cpu := count(paths, 1, MarkBar)
	if len(dev) != 2 || len(cpu) != 2 {
		t.Fatalf("bars: %d device, %d cpu, want 2 each", len(dev), len(cpu))
	}
	top := func(p drawnPath) (lo, hi float64) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, v := range p.pts {
			lo, hi = math.Min(lo, v[1]), math.Max(hi, v[1])
		}
		return lo, hi
	}
	for i := range 2 {
		_, devTop := top(dev[i])
		cpuBottom, _ := top(cpu[i])
		if math.Abs(devTop-cpuBottom) > 0.01 {
			t.Errorf("category %d: cpu starts at %g, device ends at %g", i, cpuBottom, devTop)
		}
	}

	a := New(StackedArea, "watts", "Watts", Axis{Label: "time", Unit: "s"}, Axis{Label: "power", Unit: "W"})
	a.Add("cpu", XY(0, 30), XY(1, 35), XY(2, 32)).Add("dram", XY(0, 5), XY(1, 6), XY(2, 5))
	svg, err = a.SVG(DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	paths = seriesPaths(t, svg)
	checkMarks(t, a, paths)
	for si := range 2 {
		if n, _ := count(paths, si, MarkArea); n != 1 {
			t.Errorf("series %d: %d areas, want 1", si, n)
		}
	}
}

func TestTimeSeriesSVG(t *testing.T) {
	var samples []Sample
	for i := range 900 {
		v := map[string]float64{"util": float64(i%100) / 100, "cpu": float64(i % 7)}
		if i == 10 {
			delete(v, "cpu")
		}
		samples = append(samples, Sample{T: float64(i) * 0.5, Values: v})
	}
	c := FromSamples(TimeSeries, "util", "Device utilisation", Axis{Label: "utilisation", Unit: "%"}, samples,
		SeriesOf{Key: "util", Name: "data tier", Scale: 100}, SeriesOf{Key: "cpu"})
	if got := c.Series[0].Points[150]; got.X != 75 || got.Y != 50 {
		t.Errorf("sample 150 = %+v, want x 75 (0.5 s a sample), y 50 (0.5 x 100)", got)
	}
	if len(c.Series[1].Points) != 899 || c.Series[1].Name != "cpu" {
		t.Errorf("cpu: %d points named %q, want 899 (one sample has none) named cpu", len(c.Series[1].Points), c.Series[1].Name)
	}
	svg, err := c.SVG(DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	paths := seriesPaths(t, svg)
	checkMarks(t, c, paths)
	for si, s := range c.Series {
		n, lines := count(paths, si, MarkLine)
		if n != 1 || len(lines[0].pts) != len(s.Points) {
			t.Errorf("series %d: %d lines, want 1 of %d vertices", si, n, len(s.Points))
		}
		if n, _ := count(paths, si, MarkPoint); n != 0 {
			t.Errorf("series %d: %d markers on a time series, want none", si, n)
		}
	}
}

// TestWindowsSVG: each window that overlaps the data is one band behind the lines,
// spanning exactly its x (clipped to the data's), labelled when it has room; one
// outside the data draws nothing.
func TestWindowsSVG(t *testing.T) {
	c := New(TimeSeries, "tps", "Throughput", Axis{Label: "time", Unit: "s"}, tpsAxis())
	c.Add("tps", XY(0, 10), XY(100, 20), XY(200, 15))
	c.AddWindow("power", 20, 80).AddWindow("throughput", 80, 250).AddWindow("after", 300, 400).AddWindow("instant", 150, 150)
	svg, err := c.SVG(DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	paths := seriesPaths(t, svg)
	checkMarks(t, c, paths)
	_, lines := count(paths, 0, MarkLine)
	// x transform from the line: x = 0 and x = 200 at its first and last vertices
	v := lines[0].pts
	x0, x200 := v[0][0], v[len(v)-1][0]
	px := func(x float64) float64 { return x0 + (x200-x0)*x/200 }
	band := func(i int) (lo, hi float64) {
		n, b := count(paths, i, MarkWindow)
		if n != 1 {
			t.Fatalf("window %d: %d bands, want 1", i, n)
		}
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, p := range b[0].pts {
			lo, hi = math.Min(lo, p[0]), math.Max(hi, p[0])
		}
		return lo, hi
	}
	for i, want := range [][2]float64{{20, 80}, {80, 200}} { // throughput clipped at the data's end
		lo, hi := band(i)
		if math.Abs(lo-px(want[0])) > 0.01 || math.Abs(hi-px(want[1])) > 0.01 {
			t.Errorf("window %d: band %.2f..%.2f, want %.2f..%.2f (x %v..%v)", i, lo, hi, px(want[0]), px(want[1]), want[0], want[1])
		}
	}
	if n, _ := count(paths, 2, MarkWindow); n != 0 {
		t.Errorf("a window outside the data drew %d bands", n)
	}
	if lo, hi := band(3); hi-lo < 0.99 {
		t.Errorf("an instant window is %.2f wide, want a point at least", hi-lo)
	}
	// behind the data: the bands come before the line in the SVG
	if strings.Index(string(svg), `data-mark="window"`) > strings.Index(string(svg), `data-mark="line"`) {
		t.Error("the windows are drawn over the line")
	}
	for _, label := range []string{">power<", ">throughput<"} {
		if !strings.Contains(string(svg), label) {
			t.Errorf("no label %s", label)
		}
	}
}

// TestPNG checks the PNG's size and that each series' colour, and no other series
// colour, is in it.
func TestPNG(t *testing.T) {
	c := sampleLine()
	b, err := c.PNG(DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if got := img.Bounds().Size(); got != (image.Point{960, 600}) {
		t.Errorf("size %v, want 960x600 (6.4 x 4 in at 150 DPI)", got)
	}
	pixels := map[[3]uint32]int{}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			pixels[[3]uint32{r >> 8, g >> 8, b >> 8}]++
		}
	}
	for si := range len(c.Series) + 2 {
		col := SeriesColor(si)
		n := pixels[[3]uint32{uint32(col.R), uint32(col.G), uint32(col.B)}]
		if si < len(c.Series) && n < 100 {
			t.Errorf("series %d: %d pixels of its colour %v, want a drawn line", si, n, col)
		}
		if si >= len(c.Series) && n > 0 {
			t.Errorf("%d pixels of colour %v, which no series has", n, col)
		}
	}
}

func TestInlineSVG(t *testing.T) {
	c := sampleLine()
	c.Title = `Throughput <& "users">`
	svg, err := c.InlineSVG(DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	s := string(svg)
	if !strings.HasPrefix(s, `<svg class="chart" role="img" aria-label="Throughput &lt;&amp; &#34;users&#34;&gt;" data-chart="tps-vs-users" viewBox="0 0 460.8 288"`) {
		t.Errorf("inline SVG begins %.200q", s)
	}
	if strings.Contains(s, "<?xml") || strings.Contains(s, `width="460.8pt"`) {
		t.Errorf("inline SVG keeps the file's prologue or fixed size")
	}
	if !strings.Contains(s, `font-family:'Liberation Sans',Arial,Helvetica,sans-serif;`) {
		t.Errorf("no font fallback")
	}
	if texts, fitted := strings.Count(s, "<text "), strings.Count(s, `lengthAdjust="spacingAndGlyphs"`); texts < 10 || fitted != texts {
		t.Errorf("%d texts, %d with the width gonum laid them out with; want all", texts, fitted)
	}
	seriesPaths(t, svg)
}

func TestEmptySeries(t *testing.T) {
	// A series whose cells all failed: a legend entry, nothing drawn. (A stacked
	// area's series share their x values, so none can be empty.)
	for _, kind := range []Kind{Line, Bar, StackedBar, TimeSeries} {
		c := New(kind, "empty", "Empty", Axis{Label: "x"}, Axis{Label: "y"})
		if kind.categorical() {
			c.Categories = []string{"a", "b"}
		}
		c.Add("drawn", XY(0, 1), XY(1, 2)).Add("failed")
		svg, err := c.SVG(DefaultSize)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		checkMarks(t, c, seriesPaths(t, svg))
	}
}

func TestLogAxis(t *testing.T) {
	c := New(Line, "flash", "Throughput vs users", Axis{Label: "users", Log: true}, tpsAxis())
	c.Add("10k-sas", XY(5, 100), XY(50, 800), XY(500, 1200), XY(2000, 900))
	svg, err := c.SVG(DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	_, lines := count(seriesPaths(t, svg), 0, MarkLine)
	v := lines[0].pts
	// Equal ratios of x are equal distances on a log axis: 5 -> 50 and 50 -> 500.
	if d1, d2 := v[1][0]-v[0][0], v[2][0]-v[1][0]; math.Abs(d1-d2) > 0.02 {
		t.Errorf("log x: 5->50 is %g pt, 50->500 is %g pt; want equal", d1, d2)
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(min, max float64) string {
		var out []string
		for _, tk := range (logTicks{}).Ticks(min, max) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		min, max float64
		want     string
	}{
		{2, 8, "2 5"}, // gonum's LogTicks labels nothing here
		{5, 2000, "5 10 20 50 100 200 500 1000 2000"},
		{0.5, 300000, "1 10 100 1000 10000 100000"}, // too many 1-2-5 labels: decades only
		{3, 4, "3 4"}, // no 1, 2 or 5 inside: every mark
		{0.03, 0.3, "0.05 0.1 0.2"},
	} {
		if got := labels(c.min, c.max); got != c.want {
			t.Errorf("labels over %v..%v: %q, want %q", c.min, c.max, got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := func() *Chart { return sampleLine() }
	bars := func() *Chart {
		return NewBars("b", "B", []string{"x", "y"}, Axis{Label: "c"}, Axis{Label: "v"}, false).AddValues("s", 1, 2)
	}
	cases := []struct {
		name  string
		chart func() *Chart
		want  string
	}{
		{"bad name", func() *Chart { c := ok(); c.Name = "TPS vs users"; return c }, `"tps-vs-users"`},
		{"unknown kind", func() *Chart { c := ok(); c.Kind = "pie"; return c }, `kind "pie"`},
		{"no series", func() *Chart { c := ok(); c.Series = nil; return c }, "no series"},
		{"unnamed series", func() *Chart { return ok().Add("", XY(1, 1)) }, "series 3 has no name"},
		{"duplicate series", func() *Chart { return ok().Add("nvme", XY(1, 1)) }, `two series are named "nvme"`},
		{"NaN", func() *Chart { return ok().Add("x", XY(1, math.NaN())) }, "finite"},
		{"x not increasing", func() *Chart { return ok().Add("x", XY(2, 1), XY(1, 1)) }, "x must increase"},
		{"CI without y", func() *Chart { return ok().Add("x", XYCI(1, 5, 6, 7)) }, "must be finite and hold y"},
		{"half a CI", func() *Chart { lo := 1.0; return ok().Add("x", Point{X: 1, Y: 2, Low: &lo}) }, "both low and high"},
		{"log x at 0", func() *Chart { c := ok(); c.X.Log = true; return c.Add("x", XY(0, 1)) }, "x must be > 0"},
		{"bars without categories", func() *Chart { c := bars(); c.Categories = nil; return c }, "needs categories"},
		{"bar index out of range", func() *Chart { return bars().Add("t", XY(2, 1)) }, "one of the 2 categories"},
		{"bar index not integer", func() *Chart { return bars().Add("t", XY(0.5, 1)) }, "one of the 2 categories"},
		{"stacked negative", func() *Chart { c := bars(); c.Kind = StackedBar; return c.AddValues("t", -1) }, "must not be negative"},
		{"stacked CI", func() *Chart { c := bars(); c.Kind = StackedBar; return c.Add("t", XYCI(0, 1, 0, 2)) }, "no error bars"},
		{"window on a line chart", func() *Chart { return ok().AddWindow("power", 1, 2) }, "only a time or stacked-area chart has windows"},
		{"window backwards", func() *Chart {
			return New(TimeSeries, "t", "T", Axis{}, Axis{}).Add("p", XY(0, 1), XY(9, 1)).AddWindow("power", 5, 4)
		}, `window 0 ("power", 5 to 4)`},
		{"window without a label", func() *Chart {
			return New(TimeSeries, "t", "T", Axis{}, Axis{}).Add("p", XY(0, 1), XY(9, 1)).AddWindow("", 1, 4)
		}, "needs a label"},
		{"window NaN", func() *Chart {
			return New(TimeSeries, "t", "T", Axis{}, Axis{}).Add("p", XY(0, 1), XY(9, 1)).AddWindow("x", math.NaN(), 4)
		}, "finite bounds"},
		{"area x differ", func() *Chart {
			return New(StackedArea, "a", "A", Axis{}, Axis{}).Add("p", XY(0, 1), XY(1, 1)).Add("q", XY(0, 1), XY(2, 1))
		}, `must have the x values of series "p"`},
	}
	if err := ok().Validate(); err != nil {
		t.Fatalf("valid chart: %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.chart()
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			}
			if _, err := c.SVG(DefaultSize); err == nil {
				t.Errorf("SVG drew an invalid chart")
			}
			if _, err := c.PNG(DefaultSize); err == nil {
				t.Errorf("PNG drew an invalid chart")
			}
		})
	}
}

func TestData(t *testing.T) {
	tbl := sampleLine().Data()
	wantCols := []string{"hdd-7200", "hdd-7200 95% CI low", "hdd-7200 95% CI high", "sata-ssd", "nvme"}
	if strings.Join(tbl.Columns, "|") != strings.Join(wantCols, "|") {
		t.Errorf("columns %q, want %q", tbl.Columns, wantCols)
	}
	nan := math.NaN()
	want := []DataRow{
		{"1", 1, []float64{100, 90, 110, 300, nan}},
		{"2", 2, []float64{180, 170, 195, 590, 900}},
		{"4", 4, []float64{250, 230, 260, 1100, 1700}},
		{"8", 8, []float64{260, 240, 280, 1500, nan}},
		{"16", 16, []float64{nan, nan, nan, nan, 2600}},
	}
	if len(tbl.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(tbl.Rows), len(want))
	}
	for i, w := range want {
		g := tbl.Rows[i]
		if g.X != w.X || g.XValue != w.XValue || !sameFloats(g.Values, w.Values) {
			t.Errorf("row %d = %+v, want %+v", i, g, w)
		}
	}
	b := NewBars("b", "B", []string{"I", "II", "III"}, Axis{Label: "placement"}, Axis{Label: "TPM"}, false).
		AddValues("pg", 1, math.NaN(), 3)
	rows := b.Data().Rows
	if len(rows) != 3 || rows[1].X != "II" || !math.IsNaN(rows[1].XValue) || !math.IsNaN(rows[1].Values[0]) || rows[2].Values[0] != 3 {
		t.Errorf("bar data rows %+v, want I..III with II empty", rows)
	}
}

func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

func TestTagPathsMismatch(t *testing.T) {
	if _, err := tagPaths([]byte(`<path d="M0,0"/><path d="M1,1"/>`), []tag{frame}); err == nil {
		t.Error("two paths and one mark: no error")
	}
	got, err := tagPaths([]byte(`<path d="M0,0"/><path d="M1,1"/>`), []tag{frame, {2, MarkBar}})
	if err != nil || string(got) != `<path d="M0,0"/><path data-series="2" data-mark="bar" d="M1,1"/>` {
		t.Errorf("tagPaths = %s, %v", got, err)
	}
}

func TestFormatNumber(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 250: "250", 0.1 + 0.2: "0.3", 1234.5678: "1234.57", -42.5: "-42.5",
		1.5e7: "1.5e+07", 0.00002: "2e-05", 9999999: "1e+07", 0.0001: "0.0001",
	} {
		if got := FormatNumber(v); got != want {
			t.Errorf("FormatNumber(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{"TPS vs buffer size (per medium)": "tps-vs-buffer-size-per-medium", "  ": "chart", "QphH@Size": "qphh-size"} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
