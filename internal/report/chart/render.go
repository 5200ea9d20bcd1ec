package chart

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"math"
	"regexp"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Size is the size of a rendered chart.
type Size struct {
	// Width and Height in inches.
	Width, Height float64
	// DPI is the PNG's resolution; it does not change an SVG.
	DPI int
}

// DefaultSize suits a slide or a full-width figure: 6.4 x 4 in, and at 150 DPI a PNG
// of 960 x 600 pixels.
var DefaultSize = Size{Width: 6.4, Height: 4, DPI: 150}

func (s Size) lengths() (w, h vg.Length, err error) {
	if !(s.Width > 0 && s.Height > 0 && s.Width <= 100 && s.Height <= 100) {
		return 0, 0, fmt.Errorf("size %gx%g in: width and height must be in (0, 100] inches", s.Width, s.Height)
	}
	return vg.Length(s.Width) * vg.Inch, vg.Length(s.Height) * vg.Inch, nil
}

// sans is the face of every text: Liberation Sans has the metrics of Arial and
// Helvetica, so a browser that lacks it lays the SVG's text out the same way.
func sans(f font.Font, size vg.Length) font.Font {
	f.Variant, f.Size = "Sans", size
	return f
}

// draw validates c and draws it on canvas through a tagCanvas, returned with what
// it recorded. gonum/plot panics on some inputs Validate should have
// refused; such a panic comes back as an error naming the chart.
func (c *Chart) draw(canvas vg.CanvasSizer) (tc *tagCanvas, err error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			tc, err = nil, fmt.Errorf("chart %q: drawing failed: %v", c.Name, r)
		}
	}()
	tc = newTagCanvas(canvas)
	dc := draw.New(tc)
	p, legend := c.plot(dc.Size().X, dc.Size().Y)
	const gap = vg.Length(8)
	lr := legend.Rectangle(dc)
	lw, lh := lr.Size().X, lr.Size().Y
	dc = draw.Crop(dc, gap/2, -gap/2, gap/2, -gap/2)
	switch {
	case lw <= 0.35*dc.Size().X:
		// Beside the plot, level with the top of its data area.
		p.Draw(draw.Crop(dc, 0, -(lw + gap), 0, 0))
		area := draw.Crop(dc, dc.Size().X-lw, 0, 0, 0)
		area.Max.Y = p.DataCanvas(draw.Crop(dc, 0, -(lw + gap), 0, 0)).Max.Y
		legend.Draw(area)
	default:
		// Too wide for the side: below the plot.
		p.Draw(draw.Crop(dc, 0, 0, lh+gap, 0))
		legend.Draw(draw.Crop(dc, 0, 0, 0, -(dc.Size().Y - lh)))
	}
	return tc, nil
}

// plot builds the gonum plot of c (frame and data) and its legend, kept apart so the
// legend can sit outside the data, for a canvas of width w and height h: every text
// is cut to what fits (fit), so no label, however long, can push the data out.
func (c *Chart) plot(w, h vg.Length) (*plot.Plot, plot.Legend) {
	p := plot.New()
	p.Title.TextStyle.Font = sans(p.Title.TextStyle.Font, 13)
	p.Title.Text = fit(p.Title.TextStyle, c.Title, 0.95*w)
	p.Title.Padding = vg.Points(6)
	for _, a := range []struct {
		axis  *plot.Axis
		model Axis
	}{{&p.X, c.X}, {&p.Y, c.Y}} {
		a.axis.Label.TextStyle.Font = sans(a.axis.Label.TextStyle.Font, 11)
		a.axis.Label.Text = fit(a.axis.Label.TextStyle, a.model.Title(), 0.8*min(w, h))
		a.axis.Tick.Label.Font = sans(a.axis.Tick.Label.Font, 9)
		var marker plot.Ticker = plainTicks{}
		if a.model.Log {
			a.axis.Scale = plot.LogScale{}
			marker = logTicks{}
		}
		switch {
		case len(a.model.Ticks) > 0:
			given := slices.Clone(a.model.Ticks)
			for i := range given { // side by side: a share of the width each
				given[i].Label = fit(a.axis.Tick.Label, given[i].Label, 0.7*w/vg.Length(len(given)))
			}
			marker = givenTicks(given)
		case a.model.Integer:
			marker = integerTicks{marker}
		}
		a.axis.Tick.Marker = marker
	}
	d := dataPlotter{c: c}
	p.Add(plotGrid(c), windowsPlotter{c: c}, d)
	if !c.Y.Log {
		// Headroom, so the highest bar or point does not touch the frame; it stops at
		// the bounds of the quantity (a share's 100%), unless the data pass them.
		_, _, ymin, ymax := d.DataRange()
		r := c.Y.Bounds()
		span := p.Y.Max - p.Y.Min
		if p.Y.Max > 0 {
			p.Y.Max = math.Max(ymax, math.Min(p.Y.Max+0.05*span, r.Max))
		}
		if p.Y.Min < 0 {
			p.Y.Min = math.Min(ymin, math.Max(p.Y.Min-0.05*span, r.Min))
		}
	}
	if c.Kind.categorical() {
		// Rotated labels may take a third of the height; side by side, their share of
		// the width.
		labels := make([]string, len(c.Categories))
		for i, l := range c.Categories {
			labels[i] = fit(p.X.Tick.Label, l, 0.66*h)
		}
		if labelsCrowded(p, labels, w) {
			p.X.Tick.Label.Rotation = math.Pi / 6
			p.X.Tick.Label.XAlign = draw.XRight
			p.X.Tick.Label.YAlign = draw.YCenter
		} else {
			for i, l := range c.Categories {
				labels[i] = fit(p.X.Tick.Label, l, 0.7*w/vg.Length(len(labels)))
			}
		}
		p.NominalX(labels...)
	}
	legend := plot.NewLegend()
	legend.TextStyle.Font = sans(legend.TextStyle.Font, 9)
	legend.Top, legend.Left = true, true
	legend.ThumbnailWidth = vg.Points(18)
	legend.Padding = vg.Points(3)
	for i := range c.Series {
		si := i
		if c.Kind.stacked() { // top of the stack first, as the reader sees it
			si = len(c.Series) - 1 - i
		}
		legend.Add(fit(legend.TextStyle, c.Series[si].Name, w-legend.ThumbnailWidth-3*legend.Padding), thumbnail{d: d, si: si})
	}
	return p, legend
}

// labelsCrowded reports whether the category labels, side by side, take more than
// 80% of a plot's width, about 70% of the canvas's w.
func labelsCrowded(p *plot.Plot, labels []string, w vg.Length) bool {
	var lw vg.Length
	for _, l := range labels {
		lw += p.X.Tick.Label.Width(l) + vg.Points(6)
	}
	return lw > 0.8*0.7*w
}

// ellipsis marks where fit cut a text.
const ellipsis = "…"

// fit is text cut in the middle, with an ellipsis, to the most of its start and end
// that is at most max wide in style: both ends say which of two long labels it is
// (the factor's name at the start, a level's own name at the end). The full text is
// in the chart's data and the table under it.
func fit(style draw.TextStyle, text string, max vg.Length) string {
	if style.Width(text) <= max {
		return text
	}
	r := []rune(text)
	cut := func(keep int) string { return string(r[:(keep+1)/2]) + ellipsis + string(r[len(r)-keep/2:]) }
	lo, hi := 0, len(r)-1 // the most runes kept that fit: at least none
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if style.Width(cut(mid)) <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return cut(lo)
}

// plotGrid draws light grid lines behind the data: across y always, across x only
// for numeric x (categories need none).
func plotGrid(c *Chart) plot.Plotter {
	g := plotter.NewGrid()
	g.Horizontal.Color = color.Gray{Y: 0xDD}
	g.Vertical.Color = color.Gray{Y: 0xDD}
	if c.Kind.categorical() {
		g.Vertical.Width = 0
	}
	return g
}

// plainTicks places gonum's default ticks and labels them without padding zeros
// ("250", not "250.00") or float noise ("0.3", not "0.30000000000000004").
type plainTicks struct{}

func (plainTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = FormatNumber(t.Value)
		}
	}
	return ticks
}

// integerTicks are another ticker's ticks at whole numbers only; when fewer than two
// of its labels are whole, every whole number in range (or, past 10 of them, those
// its labels round to).
type integerTicks struct{ plot.Ticker }

func (it integerTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	labels := 0
	for _, tk := range it.Ticker.Ticks(min, max) {
		if tk.Value == math.Trunc(tk.Value) {
			out = append(out, tk)
			if tk.Label != "" {
				labels++
			}
		}
	}
	if labels >= 2 {
		return out
	}
	out = out[:0]
	lo, hi := math.Ceil(min), math.Floor(max)
	step := math.Max(1, math.Ceil((hi-lo)/10))
	for v := lo; v <= hi; v += step {
		out = append(out, plot.Tick{Value: v, Label: FormatNumber(v)})
	}
	return out
}

// givenTicks are an axis's own ticks.
type givenTicks []Tick

func (g givenTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for _, tk := range g {
		if tk.Value >= min && tk.Value <= max {
			out = append(out, plot.Tick{Value: tk.Value, Label: tk.Label})
		}
	}
	return out
}

// logTicks marks 1 to 9 times each power of ten in range and labels 1, 2 and 5
// times it; with more than 10 such labels, only the powers of ten, and with fewer
// than 2, every mark. gonum's LogTicks labels powers of ten only, so a range such as
// 2 to 8 users had no label at all.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	type mark struct {
		v float64
		m int
	}
	var marks []mark
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		for m := 1; m <= 9; m++ {
			v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(m)*math.Pow(10, e), 'g', 12, 64), 64)
			if v >= min*(1-1e-9) && v <= max*(1+1e-9) {
				marks = append(marks, mark{v, m})
			}
		}
	}
	label := func(m int) bool { return m == 1 || m == 2 || m == 5 }
	n := 0
	for _, mk := range marks {
		if label(mk.m) {
			n++
		}
	}
	switch {
	case n > 10:
		label = func(m int) bool { return m == 1 }
	case n < 2:
		label = func(int) bool { return true }
	}
	ticks := make([]plot.Tick, len(marks))
	for i, mk := range marks {
		ticks[i].Value = mk.v
		if label(mk.m) {
			ticks[i].Label = FormatNumber(mk.v)
		}
	}
	return ticks
}

// FormatNumber writes v with at most 6 significant digits, in plain notation from
// 0.0001 to 10^7 and in exponent notation outside.
func FormatNumber(v float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	if a := math.Abs(r); a != 0 && (a >= 1e7 || a < 1e-4) {
		return strconv.FormatFloat(r, 'g', -1, 64)
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// SVG renders the chart as a standalone SVG file. Every path that draws a series
// carries data-series (the series' index) and data-mark (a Mark) attributes.
func (c *Chart) SVG(size Size) ([]byte, error) {
	w, h, err := size.lengths()
	if err != nil {
		return nil, fmt.Errorf("chart %q: %w", c.Name, err)
	}
	cv := vgsvg.New(w, h)
	tc, err := c.draw(cv)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart %q: %w", c.Name, err)
	}
	out, err := tagPaths(buf.Bytes(), tc.marks)
	if err == nil {
		out, err = fitTexts(out, tc.texts)
	}
	if err != nil {
		return nil, fmt.Errorf("chart %q: %w", c.Name, err)
	}
	return fontFallback.ReplaceAll(out, []byte(`font-family:'$1',Arial,Helvetica,sans-serif;`)), nil
}

// fontFallback finds vgsvg's font-family, which names one face and no fallback.
var fontFallback = regexp.MustCompile(`font-family:([^;"']+);`)

// svgHeader is what precedes the <svg> element in vgsvg's output, and the size
// attributes the inline form replaces with CSS.
var (
	svgHeader = regexp.MustCompile(`(?s)^.*?<svg `)
	svgSize   = regexp.MustCompile(`^<svg width="[^"]*" height="[^"]*"`)
)

// InlineSVG renders the chart as an <svg> element for an HTML page: the SVG file
// without its XML prologue, sized by CSS (its viewBox keeps the aspect), labelled
// with its title for screen readers, and with class "chart".
func (c *Chart) InlineSVG(size Size) ([]byte, error) {
	svg, err := c.SVG(size)
	if err != nil {
		return nil, err
	}
	svg = svgHeader.ReplaceAll(svg, []byte("<svg "))
	attrs := fmt.Sprintf(`<svg class="chart" role="img" aria-label="%s" data-chart="%s"`, html.EscapeString(c.Title), c.Name)
	if !svgSize.Match(svg) {
		return nil, fmt.Errorf("chart %q: the SVG canvas's header changed: %.80q", c.Name, svg)
	}
	return svgSize.ReplaceAll(svg, []byte(attrs)), nil
}

// PNG renders the chart as a PNG image at size.DPI.
func (c *Chart) PNG(size Size) ([]byte, error) {
	w, h, err := size.lengths()
	if err != nil {
		return nil, fmt.Errorf("chart %q: %w", c.Name, err)
	}
	if size.DPI < 30 || size.DPI > 1200 {
		return nil, fmt.Errorf("chart %q: DPI %d: want 30 to 1200", c.Name, size.DPI)
	}
	cv := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(size.DPI))
	if _, err := c.draw(cv); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: cv}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart %q: %w", c.Name, err)
	}
	return buf.Bytes(), nil
}
