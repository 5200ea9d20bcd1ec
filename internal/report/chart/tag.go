package chart

import (
	"bytes"
	"fmt"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Mark is what one drawn element of a chart shows.
type Mark string

// The marks a series draws. A Line series draws one MarkLine path per unbroken run
// of points inside the plot (one, normally), a MarkPoint per point and a MarkCI per
// point with an error bar; a TimeSeries series draws MarkLine paths only; a bar
// series draws a MarkBar per point (and MarkCI); a StackedArea series one MarkArea.
// Each series also draws one MarkLegend thumbnail (two for a Line: line and marker).
const (
	MarkLine   Mark = "line"
	MarkPoint  Mark = "point"
	MarkCI     Mark = "ci"
	MarkBar    Mark = "bar"
	MarkArea   Mark = "area"
	MarkLegend Mark = "legend"
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
	const open = "<path "
	if n := bytes.Count(svg, []byte(open)); n != len(marks) {
		return nil, fmt.Errorf("the SVG has %d paths but %d were drawn: the SVG canvas no longer writes one path per stroke or fill", n, len(marks))
	}
	var out bytes.Buffer
	out.Grow(len(svg) + 32*len(marks))
	rest := svg
	for _, m := range marks {
		i := bytes.Index(rest, []byte(open))
		out.Write(rest[:i+len(open)])
		rest = rest[i+len(open):]
		if m.series >= 0 {
			fmt.Fprintf(&out, `data-series="%d" data-mark="%s" `, m.series, m.mark)
		}
	}
	out.Write(rest)
	return out.Bytes(), nil
}
