package chart

import (
	"bytes"
	"fmt"
	"slices"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Mark is what one drawn element of a chart shows.
type Mark string

// The marks a series draws. A Line series draws one MarkLine path per unbroken run
// of points inside the plot (one, normally), a MarkPoint per point and a MarkCI per
// point with an error bar; a TimeSeries series draws MarkLine paths only, or one
// MarkPoint when it has a single point; a bar
// series draws a MarkBar per point (and MarkCI); a StackedArea series one MarkArea,
// or a MarkPoint at its top when it has one x.
// Each series also draws one MarkLegend thumbnail (two for a Line: line and marker).
// A window draws one MarkWindow band when it overlaps the data's x; its "series" is
// the window's index in Chart.Windows.
const (
	MarkLine   Mark = "line"
	MarkPoint  Mark = "point"
	MarkCI     Mark = "ci"
	MarkBar    Mark = "bar"
	MarkArea   Mark = "area"
	MarkLegend Mark = "legend"
	MarkWindow Mark = "window"
)

// tag says which series (and which of its marks) an element draws; series -1 is
// the frame: background, axes, ticks.
type tag struct {
	series int
	mark   Mark
}

var frame = tag{series: -1}

// tagCanvas passes every call to the canvas it wraps and records, for each path
// the SVG canvas writes, the tag in force. The SVG canvas writes one <path> per Fill
// and one per Stroke with a positive line width (vgsvg.Canvas.Stroke skips the rest),
// so the records line up with the <path> elements in order; tagPaths checks that
// they do. The same wrapper draws PNGs, so both formats take one code path.
type tagCanvas struct {
	vg.CanvasSizer
	cur    tag
	widths []vg.Length // line width per Push level
	marks  []tag
	// texts holds the width, in points, gonum gave each text it drew, in order.
	texts []float64
}

func newTagCanvas(c vg.CanvasSizer) *tagCanvas {
	t := &tagCanvas{CanvasSizer: c, cur: frame, widths: []vg.Length{0}}
	vg.Initialize(t)
	return t
}

func (t *tagCanvas) SetLineWidth(w vg.Length) {
	t.widths[len(t.widths)-1] = w
	t.CanvasSizer.SetLineWidth(w)
}

func (t *tagCanvas) Push() {
	t.widths = append(t.widths, t.widths[len(t.widths)-1])
	t.CanvasSizer.Push()
}

func (t *tagCanvas) Pop() {
	t.widths = t.widths[:len(t.widths)-1]
	t.CanvasSizer.Pop()
}

func (t *tagCanvas) Stroke(p vg.Path) {
	if t.widths[len(t.widths)-1].Points() > 0 {
		t.marks = append(t.marks, t.cur)
	}
	t.CanvasSizer.Stroke(p)
}

func (t *tagCanvas) Fill(p vg.Path) {
	t.marks = append(t.marks, t.cur)
	t.CanvasSizer.Fill(p)
}

func (t *tagCanvas) FillString(f font.Face, pt vg.Point, text string) {
	t.texts = append(t.texts, f.Width(text).Points())
	t.CanvasSizer.FillString(f, pt, text)
}

// with draws f with the tag series/mark when c is, or wraps, a tagCanvas.
func with(c vg.Canvas, series int, mark Mark, f func()) {
	t := findTagCanvas(c)
	if t == nil {
		f()
		return
	}
	prev := t.cur
	t.cur = tag{series, mark}
	f()
	t.cur = prev
}

// findTagCanvas unwraps c: draw.Crop nests a draw.Canvas in another for each crop.
func findTagCanvas(c vg.Canvas) *tagCanvas {
	for {
		switch v := c.(type) {
		case *tagCanvas:
			return v
		case draw.Canvas:
			c = v.Canvas
		case *draw.Canvas:
			c = v.Canvas
		default:
			return nil
		}
	}
}

// tagPaths adds data-series and data-mark attributes to the <path> elements of svg
// that draw a series, in the order marks recorded them.
func tagPaths(svg []byte, marks []tag) ([]byte, error) {
	return addAttributes(svg, "<path ", len(marks), func(i int) string {
		if m := marks[i]; m.series >= 0 {
			return fmt.Sprintf(`data-series="%d" data-mark="%s" `, m.series, m.mark)
		}
		return ""
	})
}

// fitTexts gives each <text> element of svg the width gonum laid it out with
// (textLength), so a browser without Liberation Sans or a metric twin (Arial,
// Helvetica) fits its own font into the same room instead of overflowing the
// legend or the frame.
func fitTexts(svg []byte, widths []float64) ([]byte, error) {
	return addAttributes(svg, "<text ", len(widths), func(i int) string {
		if widths[i] <= 0 {
			return ""
		}
		return fmt.Sprintf(`textLength="%.5g" lengthAdjust="spacingAndGlyphs" `, widths[i])
	})
}

// addAttributes inserts attrs(i) after the i-th occurrence of open, which must
// occur exactly n times.
func addAttributes(svg []byte, open string, n int, attrs func(i int) string) ([]byte, error) {
	if got := bytes.Count(svg, []byte(open)); got != n {
		return nil, fmt.Errorf("the SVG has %d %q elements but %d were drawn: the SVG canvas no longer writes one element per call", got, open, n)
	}
	var out bytes.Buffer
	out.Grow(len(svg) + 48*n)
	rest := svg
	for i := range n {
		j := bytes.Index(rest, []byte(open))
		out.Write(rest[:j+len(open)])
		rest = rest[j+len(open):]
		out.WriteString(attrs(i))
	}
	out.Write(rest)
	return out.Bytes(), nil
}

// SeriesMark is one kind of mark of one series.
type SeriesMark struct {
	Series int
	Mark   Mark
}

// ExpectedMarks is how many marks of each kind each series draws (see Mark): what a
// test of a rendering, in Go or in a browser, should count.
func (c *Chart) ExpectedMarks() map[SeriesMark]int {
	out := map[SeriesMark]int{}
	add := func(si int, m Mark, n int) {
		if n > 0 {
			out[SeriesMark{si, m}] += n
		}
	}
	if len(c.Windows) > 0 {
		xmin, xmax, _, _ := dataPlotter{c: c}.DataRange()
		for i, w := range c.Windows {
			if w.From <= xmax && w.To >= xmin {
				add(i, MarkWindow, 1)
			}
		}
	}
	for si, s := range c.Series {
		n, ci := len(s.Points), 0
		for _, p := range s.Points {
			if p.HasCI() {
				ci++
			}
		}
		switch c.Kind {
		case Line:
			add(si, MarkLine, min(n-1, 1))
			add(si, MarkPoint, n)
			add(si, MarkCI, ci)
			add(si, MarkLegend, 2)
		case TimeSeries:
			add(si, MarkLine, min(n-1, 1))
			if n == 1 {
				add(si, MarkPoint, 1)
			}
			add(si, MarkLegend, 1)
		case Bar, StackedBar:
			add(si, MarkBar, n)
			add(si, MarkCI, ci)
			add(si, MarkLegend, 1)
		case StackedArea:
			if n == 1 {
				add(si, MarkPoint, 1)
			} else {
				add(si, MarkArea, min(n, 1))
			}
			add(si, MarkLegend, 1)
		}
	}
	return out
}

// MarkDifferences compares the marks counted in a drawing of c (got) with
// ExpectedMarks and describes each difference; none when they agree.
func (c *Chart) MarkDifferences(got map[SeriesMark]int) []string {
	var out []string
	want := c.ExpectedMarks()
	for k, n := range want {
		if got[k] != n {
			out = append(out, fmt.Sprintf("chart %s: series %d drew %d %s marks, want %d", c.Name, k.Series, got[k], k.Mark, n))
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok {
			out = append(out, fmt.Sprintf("chart %s: series %d drew %d %s marks, want none", c.Name, k.Series, n, k.Mark))
		}
	}
	slices.Sort(out)
	return out
}
