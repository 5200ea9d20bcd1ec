package chart

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Widths of what a series draws, in points.
const (
	lineWidth     = 1.75
	timeLineWidth = 1.25
	ciWidth       = 1
	markerRadius  = 2.5
	// groupWidth is the share of a category that its group of bars fills.
	groupWidth = 0.8
)

// dataPlotter draws every series of a chart, each under its own tag. It is the only
// gonum Plotter the chart adds: gonum draws the frame (axes, ticks, labels, title)
// around it and the legend beside it.
type dataPlotter struct {
	c *Chart
}

func (d dataPlotter) Plot(dc draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&dc)
	switch d.c.Kind {
	case Line, TimeSeries:
		for si, s := range d.c.Series {
			d.plotLine(dc, trX, trY, si, s)
		}
	case Bar, StackedBar:
		base := make([]float64, len(d.c.Categories))
		for si, s := range d.c.Series {
			d.plotBars(dc, trX, trY, si, s, base)
		}
	case StackedArea:
		base := make([]float64, len(d.c.Series[0].Points))
		for si, s := range d.c.Series {
			d.plotArea(dc, trX, trY, si, s, base)
		}
	}
}

func (d dataPlotter) lineStyle(si int) draw.LineStyle {
	w := lineWidth
	if d.c.Kind == TimeSeries {
		w = timeLineWidth
	}
	return draw.LineStyle{Color: SeriesColor(si), Width: vg.Points(w), Dashes: seriesDashes(si)}
}

func (d dataPlotter) plotLine(dc draw.Canvas, trX, trY func(float64) vg.Length, si int, s Series) {
	col := SeriesColor(si)
	with(dc.Canvas, si, MarkCI, func() {
		for _, p := range s.Points {
			if p.HasCI() {
				errorBar(dc, trX(p.X), trY(*p.Low), trY(*p.High), vg.Points(4), col)
			}
		}
	})
	pts := make([]vg.Point, len(s.Points))
	for i, p := range s.Points {
		pts[i] = vg.Point{X: trX(p.X), Y: trY(p.Y)}
	}
	with(dc.Canvas, si, MarkLine, func() {
		if len(pts) > 1 {
			dc.StrokeLines(d.lineStyle(si), dc.ClipLinesXY(pts)...)
		}
	})
	// A time series draws a lone point as a marker: it has no line to draw (a run of
	// one report interval).
	if d.c.Kind == Line || len(pts) == 1 {
		with(dc.Canvas, si, MarkPoint, func() {
			g := glyph(si)
			for _, pt := range pts {
				dc.DrawGlyph(g, pt)
			}
		})
	}
}

// offset is where series si's bar sits in its category, and its width, in
// category units.
func (d dataPlotter) offset(si int) (off, width float64) {
	if d.c.Kind == StackedBar {
		return 0, groupWidth * 0.75
	}
	width = groupWidth / float64(len(d.c.Series))
	return -groupWidth/2 + (float64(si)+0.5)*width, width
}

func (d dataPlotter) plotBars(dc draw.Canvas, trX, trY func(float64) vg.Length, si int, s Series, base []float64) {
	off, width := d.offset(si)
	col := SeriesColor(si)
	with(dc.Canvas, si, MarkBar, func() {
		for _, p := range s.Points {
			i := int(p.X)
			x0, x1 := trX(p.X+off-width/2), trX(p.X+off+width/2)
			y0, y1 := trY(base[i]), trY(base[i]+p.Y)
			dc.FillPolygon(col, dc.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}, {X: x1, Y: y0}}))
		}
	})
	with(dc.Canvas, si, MarkCI, func() {
		for _, p := range s.Points {
			if p.HasCI() {
				errorBar(dc, trX(p.X+off), trY(*p.Low), trY(*p.High), (trX(width)-trX(0))/4, color.Black)
			}
		}
	})
	if d.c.Kind == StackedBar {
		for _, p := range s.Points {
			base[int(p.X)] += p.Y
		}
	}
}

func (d dataPlotter) plotArea(dc draw.Canvas, trX, trY func(float64) vg.Length, si int, s Series, base []float64) {
	n := len(s.Points)
	if n == 1 { // an area of one x has no width: its top as a marker
		p := s.Points[0]
		with(dc.Canvas, si, MarkPoint, func() {
			dc.DrawGlyph(glyph(si), vg.Point{X: trX(p.X), Y: trY(base[0] + p.Y)})
		})
		base[0] += p.Y
		return
	}
	poly := make([]vg.Point, 0, 2*n)
	for i, p := range s.Points {
		poly = append(poly, vg.Point{X: trX(p.X), Y: trY(base[i] + p.Y)})
	}
	for i := n - 1; i >= 0; i-- {
		poly = append(poly, vg.Point{X: trX(s.Points[i].X), Y: trY(base[i])})
	}
	with(dc.Canvas, si, MarkArea, func() {
		dc.FillPolygon(SeriesColor(si), dc.ClipPolygonXY(poly))
	})
	for i, p := range s.Points {
		base[i] += p.Y
	}
}

// errorBar draws one error bar as a single path: the low cap, the bar, the high cap.
func errorBar(dc draw.Canvas, x, low, high, halfCap vg.Length, col color.Color) {
	var path vg.Path
	path.Move(vg.Point{X: x - halfCap, Y: low})
	path.Line(vg.Point{X: x + halfCap, Y: low})
	path.Move(vg.Point{X: x, Y: low})
	path.Line(vg.Point{X: x, Y: high})
	path.Move(vg.Point{X: x - halfCap, Y: high})
	path.Line(vg.Point{X: x + halfCap, Y: high})
	dc.SetLineStyle(draw.LineStyle{Color: col, Width: vg.Points(ciWidth)})
	dc.Stroke(path)
}

func glyph(si int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: SeriesColor(si), Radius: vg.Points(markerRadius), Shape: draw.CircleGlyph{}}
}

// DataRange covers every value, error bar and stacked total, and 0 on a linear y:
// a bar starts at 0 and a throughput shown from 0 does not exaggerate its changes.
func (d dataPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	if !d.c.Y.Log {
		ymin, ymax = 0, 0
	}
	grow := func(x, y float64) {
		xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
	}
	stack := map[float64]float64{}
	for _, s := range d.c.Series {
		for _, p := range s.Points {
			y := p.Y
			if d.c.Kind.stacked() {
				stack[p.X] += p.Y
				y = stack[p.X]
			}
			grow(p.X, y)
			if p.HasCI() {
				grow(p.X, *p.Low)
				grow(p.X, *p.High)
			}
		}
	}
	if d.c.Kind.categorical() {
		xmin, xmax = -0.5, float64(len(d.c.Categories))-0.5
	}
	if math.IsInf(xmin, 1) { // no points at all: an empty frame
		xmin, xmax = 0, 1
		if d.c.Y.Log {
			ymin, ymax = 1, 10
		}
	}
	return xmin, xmax, ymin, ymax
}

// GlyphBoxes keeps the markers at the plot's edges whole: a Line chart's, and a time
// series' lone point.
func (d dataPlotter) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	if d.c.Kind != Line && d.c.Kind != TimeSeries {
		return nil
	}
	var boxes []plot.GlyphBox
	for si, s := range d.c.Series {
		if d.c.Kind == TimeSeries && len(s.Points) != 1 {
			continue
		}
		for _, pt := range s.Points {
			boxes = append(boxes, plot.GlyphBox{X: p.X.Norm(pt.X), Y: p.Y.Norm(pt.Y), Rectangle: glyph(si).Rectangle()})
		}
	}
	return boxes
}

// thumbnail is series si's entry in the legend.
type thumbnail struct {
	d  dataPlotter
	si int
}

func (t thumbnail) Thumbnail(c *draw.Canvas) {
	with(c.Canvas, t.si, MarkLegend, func() {
		switch t.d.c.Kind {
		case Line, TimeSeries:
			y := c.Center().Y
			c.StrokeLine2(t.d.lineStyle(t.si), c.Min.X, y, c.Max.X, y)
			if t.d.c.Kind == Line {
				c.DrawGlyph(glyph(t.si), c.Center())
			}
		default:
			c.FillPolygon(SeriesColor(t.si), []vg.Point{
				{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}})
		}
	})
}

// windowsPlotter draws a chart's windows behind its data: each a band over its span
// of x (clipped to the plot; at least a point wide), shaded in turn lighter and
// darker, with its label at the top left when the band has room for it.
type windowsPlotter struct {
	c *Chart
}

func (w windowsPlotter) Plot(dc draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&dc)
	font := sans(p.X.Tick.Label.Font, 8)
	style := draw.TextStyle{Color: color.Gray{Y: 0x55}, Font: font, Handler: p.X.Tick.Label.Handler,
		XAlign: draw.XLeft, YAlign: draw.YTop}
	for i, win := range w.c.Windows {
		if win.From > p.X.Max || win.To < p.X.Min {
			continue
		}
		x0, x1 := trX(math.Max(win.From, p.X.Min)), trX(math.Min(win.To, p.X.Max))
		if x1-x0 < vg.Points(1) {
			x1 = x0 + vg.Points(1)
		}
		shade := color.NRGBA{R: 0x88, G: 0x88, B: 0x88, A: 0x18}
		if i%2 == 1 {
			shade.A = 0x30
		}
		with(dc.Canvas, i, MarkWindow, func() {
			dc.FillPolygon(shade, []vg.Point{{X: x0, Y: dc.Min.Y}, {X: x0, Y: dc.Max.Y}, {X: x1, Y: dc.Max.Y}, {X: x1, Y: dc.Min.Y}})
		})
		if pad := vg.Points(2); style.Width(win.Label)+2*pad <= x1-x0 {
			dc.FillText(style, vg.Point{X: x0 + pad, Y: dc.Max.Y - pad}, win.Label)
		}
	}
}
