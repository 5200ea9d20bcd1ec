package chart

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"tierbench/internal/report/quantity"
)

// Kind is how a chart draws its series.
type Kind string

const (
	// Line draws each series as a line with a marker per point over a numeric x
	// (users, buffer size, SF), with its 95% CI as error bars when the points have one.
	Line Kind = "line"
	// Bar draws grouped bars over Categories: one bar per series in each category
	// (placements x engines), with error bars when the points have an interval.
	Bar Kind = "bar"
	// StackedBar stacks the series' bars in each category, for the components of a
	// total (energy of devices, CPU and DRAM per cell).
	StackedBar Kind = "stacked-bar"
	// TimeSeries draws lines without markers over seconds since the run started, for
	// monitoring series of many points (device utilisation, CPU, watts).
	TimeSeries Kind = "time"
	// StackedArea stacks time series as filled areas (watts per component over time);
	// its series share their x values.
	StackedArea Kind = "stacked-area"
)

var kinds = []Kind{Line, Bar, StackedBar, TimeSeries, StackedArea}

// categorical reports whether the kind's x is Categories (the point's X is the index).
func (k Kind) categorical() bool { return k == Bar || k == StackedBar }

// stacked reports whether the kind adds its series on top of each other.
func (k Kind) stacked() bool { return k == StackedBar || k == StackedArea }

// Axis names an axis and its unit.
type Axis struct {
	Label string `json:"label"`
	// Unit is shown in brackets after the label: "tx/s", "MiB", "s", "%".
	Unit string `json:"unit,omitempty"`
	// Log draws a logarithmic scale (users 5 to 2000); every value must be > 0.
	Log bool `json:"log,omitempty"`
	// Range is the values the axis's quantity can take; nil for the range of Unit in
	// package quantity's registry. The axis's headroom stops at it, and an error bar
	// may not leave it (Bounds).
	Range *quantity.Range `json:"range,omitempty"`
	// Integer puts ticks at whole numbers only: users, streams, warehouses.
	Integer bool `json:"integer,omitempty"`
	// Ticks, when set, are the axis's only ticks: the levels of a factor with those
	// of the factors zipped to it ("4 / 1GiB" for users 4 with buffer 1GiB).
	Ticks []Tick `json:"ticks,omitempty"`
}

// Tick is a labelled place on an axis.
type Tick struct {
	Value float64 `json:"value"`
	Label string  `json:"label"`
}

// Bounds is the range of the axis's quantity: Range, or its unit's in the registry.
func (a Axis) Bounds() quantity.Range {
	if a.Range != nil {
		return *a.Range
	}
	return quantity.Of(a.Unit)
}

// Title is the axis title drawn on the chart: "Label (Unit)", or Label alone when it
// starts with its unit as a word (QphH@Size, "QphH@Size, unrounded").
func (a Axis) Title() string {
	rest, named := strings.CutPrefix(a.Label, a.Unit)
	if a.Unit == "" || named && (rest == "" || rest[0] == ',' || rest[0] == ' ') {
		return a.Label
	}
	return a.Label + " (" + a.Unit + ")"
}

// Chart is one figure: what it shows and every number it draws. It is plain data:
// the HTML report embeds it as JSON next to the drawing, and the renderers only
// read it.
type Chart struct {
	// Name identifies the chart in a document and names its files
	// (figures/NAME.png): lower-case letters, digits, '.', '_' and '-'.
	Name  string `json:"name"`
	Title string `json:"title"`
	Kind  Kind   `json:"kind"`
	X     Axis   `json:"x"`
	Y     Axis   `json:"y"`
	// Categories are the groups along x of a Bar or StackedBar chart.
	Categories []string `json:"categories,omitempty"`
	Series     []Series `json:"series"`
	// Note is a caption under the chart: what the error bars are, where the numbers
	// come from.
	Note string `json:"note,omitempty"`
	// Windows are spans of a time chart's x the run named (a test, a level of
	// users), drawn as bands behind the data with their labels.
	Windows []Window `json:"windows,omitempty"`
}

// Window is a named span of x: From to To (To >= From).
type Window struct {
	Label string  `json:"label"`
	From  float64 `json:"from"`
	To    float64 `json:"to"`
}

// Series is one line, one set of bars or one area, shown in the legend by Name.
type Series struct {
	Name   string  `json:"name"`
	Points []Point `json:"points"`
}

// Point is one value. For Bar and StackedBar charts X is the index of the category;
// a category without a point has no bar for that series (a failed cell).
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	// Low and High bound the error bar (the 95% confidence interval of Y); both nil
	// for none.
	Low  *float64 `json:"low,omitempty"`
	High *float64 `json:"high,omitempty"`
}

// XY is a point without an error bar.
func XY(x, y float64) Point { return Point{X: x, Y: y} }

// XYCI is a point with the error bar low..high.
func XYCI(x, y, low, high float64) Point { return Point{X: x, Y: y, Low: &low, High: &high} }

// HasCI reports whether the point has an error bar.
func (p Point) HasCI() bool { return p.Low != nil && p.High != nil }

// New starts a chart of kind with its axes; add series with Add.
func New(kind Kind, name, title string, x, y Axis) *Chart {
	return &Chart{Name: name, Title: title, Kind: kind, X: x, Y: y}
}

// NewBars starts a Bar chart (StackedBar when stacked) over categories.
func NewBars(name, title string, categories []string, x, y Axis, stacked bool) *Chart {
	kind := Bar
	if stacked {
		kind = StackedBar
	}
	c := New(kind, name, title, x, y)
	c.Categories = categories
	return c
}

// AddWindow appends a window and returns the chart, so calls chain.
func (c *Chart) AddWindow(label string, from, to float64) *Chart {
	c.Windows = append(c.Windows, Window{Label: label, From: from, To: to})
	return c
}

// Add appends a series and returns the chart, so calls chain.
func (c *Chart) Add(name string, points ...Point) *Chart {
	c.Series = append(c.Series, Series{Name: name, Points: points})
	return c
}

// AddValues appends a series of plain values: over the categories of a bar chart
// (values[i] belongs to Categories[i]), or at x = 0, 1, 2... otherwise. A NaN value is
// left out: no bar, no point.
func (c *Chart) AddValues(name string, values ...float64) *Chart {
	pts := make([]Point, 0, len(values))
	for i, v := range values {
		if !math.IsNaN(v) {
			pts = append(pts, XY(float64(i), v))
		}
	}
	return c.Add(name, pts...)
}

// LeaveOutNonFinite takes out of c what is no finite number (NaN, an infinity: a
// figure that was missing, or null in the file it came from), which a chart cannot
// draw and its JSON cannot hold: a point whose x or y is one (in a stacked area, that
// x in every series, which must share their x values), an error bar with such an end
// (the point stays), a window or a tick at one. The note says what was left out, so
// that the chart draws the rest and says why a point is missing. It returns how many
// points it took out; a second call finds nothing.
func (c *Chart) LeaveOutNonFinite() int {
	bad := func(p Point) bool { return !finite(p.X) || !finite(p.Y) }
	var gone []string
	points, bars := 0, 0
	dropX := map[float64]bool{} // a stacked area's x values to take out of every series
	for _, s := range c.Series {
		for _, p := range s.Points {
			if c.Kind == StackedArea && bad(p) && finite(p.X) {
				dropX[p.X] = true
			}
		}
	}
	for si := range c.Series {
		s := &c.Series[si]
		kept := s.Points[:0:0]
		for _, p := range s.Points {
			switch {
			case bad(p) || dropX[p.X]:
				points++
				if len(gone) < 3 {
					x := "x " + FormatNumber(p.X)
					if i := int(p.X); c.Kind.categorical() && float64(i) == p.X && i >= 0 && i < len(c.Categories) {
						x = c.Categories[i]
					}
					gone = append(gone, fmt.Sprintf("%s at %s (y %s)", s.Name, x, FormatNumber(p.Y)))
				}
				continue
			case p.HasCI() && (!finite(*p.Low) || !finite(*p.High)):
				p.Low, p.High = nil, nil
				bars++
			}
			kept = append(kept, p)
		}
		if len(kept) < len(s.Points) || bars > 0 {
			s.Points = kept
		}
	}
	c.Windows = slices.DeleteFunc(c.Windows, func(w Window) bool { return !finite(w.From) || !finite(w.To) })
	c.X.Ticks = slices.DeleteFunc(c.X.Ticks, func(tk Tick) bool { return !finite(tk.Value) })
	var said []string
	if points > 0 {
		text := fmt.Sprintf("%d point(s) with no number (NaN or infinite) left out: %s", points, strings.Join(gone, ", "))
		if points > len(gone) {
			text += fmt.Sprintf(" and %d more", points-len(gone))
		}
		said = append(said, text)
	}
	if bars > 0 {
		said = append(said, fmt.Sprintf("%d error bar(s) whose ends were no number left out", bars))
	}
	if len(said) > 0 {
		note := strings.Join(said, "; ") + "."
		if c.Note != "" {
			note = c.Note + " " + note
		}
		c.Note = note
	}
	return points
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// Slug turns a title into a chart name: lower case, runs of other characters as '-'.
func Slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	if b.Len() == 0 {
		return "chart"
	}
	return b.String()
}

// Validate checks that the chart can be drawn as it says: a name usable as a file
// name, a known kind, named series with finite values, x increasing along a line,
// category indexes in range, error bars around their value, positive values on a log
// axis, stacked values that are not negative and (for areas) share x. The error
// names the chart, the series and the point.
func (c *Chart) Validate() error {
	if err := c.validate(); err != nil {
		return fmt.Errorf("chart %q: %w", c.Name, err)
	}
	return nil
}

// CheckName checks that name can name a chart or table: its files and its element
// in a page.
func CheckName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("name must be lower-case letters, digits, '.', '_' or '-' (e.g. %q)", Slug(name))
	}
	return nil
}

func (c *Chart) validate() error {
	if err := CheckName(c.Name); err != nil {
		return err
	}
	if !slices.Contains(kinds, c.Kind) {
		return fmt.Errorf("kind %q is not one of %v", c.Kind, kinds)
	}
	if len(c.Series) == 0 {
		return fmt.Errorf("no series")
	}
	if c.Kind.categorical() {
		if len(c.Categories) == 0 {
			return fmt.Errorf("a %s chart needs categories", c.Kind)
		}
		if c.X.Log {
			return fmt.Errorf("a %s chart's x is categories: it cannot be logarithmic", c.Kind)
		}
	}
	if c.Kind.stacked() && c.Y.Log {
		return fmt.Errorf("a %s chart cannot have a logarithmic y", c.Kind)
	}
	if len(c.Y.Ticks) > 0 {
		return fmt.Errorf("y has ticks of its own: only x may have them")
	}
	if len(c.X.Ticks) > 0 && c.Kind.categorical() {
		return fmt.Errorf("a %s chart's x is categories: it has no ticks of its own", c.Kind)
	}
	for i, tk := range c.X.Ticks {
		if !finite(tk.Value) || tk.Label == "" || c.X.Log && tk.Value <= 0 {
			return fmt.Errorf("x tick %d (%q at %v): a tick needs a label and a finite value (> 0 on a logarithmic axis)", i, tk.Label, tk.Value)
		}
	}
	for i, w := range c.Windows {
		if c.Kind != TimeSeries && c.Kind != StackedArea {
			return fmt.Errorf("window %d (%q): only a %s or %s chart has windows", i, w.Label, TimeSeries, StackedArea)
		}
		if w.Label == "" || !finite(w.From) || !finite(w.To) || w.To < w.From {
			return fmt.Errorf("window %d (%q, %v to %v): a window needs a label and finite bounds, from <= to", i, w.Label, w.From, w.To)
		}
		if c.X.Log && w.From <= 0 {
			return fmt.Errorf("window %d (%q): from %v must be > 0 on a logarithmic axis", i, w.Label, w.From)
		}
	}
	seen := map[string]bool{}
	for si, s := range c.Series {
		if s.Name == "" {
			return fmt.Errorf("series %d has no name", si)
		}
		if seen[s.Name] {
			return fmt.Errorf("two series are named %q", s.Name)
		}
		seen[s.Name] = true
		if err := c.validateSeries(s); err != nil {
			return fmt.Errorf("series %q: %w", s.Name, err)
		}
		if c.Kind == StackedArea && si > 0 && !sameX(s.Points, c.Series[0].Points) {
			return fmt.Errorf("series %q: a stacked area's series must have the x values of series %q", s.Name, c.Series[0].Name)
		}
	}
	return nil
}

func (c *Chart) validateSeries(s Series) error {
	for i, p := range s.Points {
		where := fmt.Sprintf("point %d (x %v)", i, p.X)
		if !finite(p.X) || !finite(p.Y) {
			return fmt.Errorf("%s: x and y must be finite numbers, got %v, %v", where, p.X, p.Y)
		}
		if (p.Low == nil) != (p.High == nil) {
			return fmt.Errorf("%s: an error bar needs both low and high", where)
		}
		if p.HasCI() {
			if c.Kind.stacked() || c.Kind == TimeSeries {
				return fmt.Errorf("%s: a %s chart has no error bars", where, c.Kind)
			}
			if !finite(*p.Low) || !finite(*p.High) || *p.Low > p.Y || *p.High < p.Y {
				return fmt.Errorf("%s: error bar %v..%v must be finite and hold y %v", where, *p.Low, *p.High, p.Y)
			}
			// A value outside its range (a share measured at 100.2%) may carry an
			// interval past the range: none of the range's scales takes such values.
			if r := c.Y.Bounds(); r.Contains(p.Y) && (!r.Contains(*p.Low) || !r.Contains(*p.High)) {
				return fmt.Errorf("%s: error bar %v..%v leaves the range of %s (%s)", where, *p.Low, *p.High, c.Y.Title(), r)
			}
		}
		if c.Kind.categorical() {
			if p.X != math.Trunc(p.X) || p.X < 0 || int(p.X) >= len(c.Categories) {
				return fmt.Errorf("%s: x must be the index of one of the %d categories", where, len(c.Categories))
			}
			if i > 0 && p.X <= s.Points[i-1].X {
				return fmt.Errorf("%s: categories must be in order, each at most once", where)
			}
		} else if i > 0 && p.X <= s.Points[i-1].X {
			return fmt.Errorf("%s: x must increase along a series (previous x %v)", where, s.Points[i-1].X)
		}
		if c.X.Log && p.X <= 0 {
			return fmt.Errorf("%s: x must be > 0 on a logarithmic axis", where)
		}
		if c.Y.Log && (p.Y <= 0 || p.HasCI() && *p.Low <= 0) {
			return fmt.Errorf("%s: y and its error bar must be > 0 on a logarithmic axis", where)
		}
		if c.Kind.stacked() && p.Y < 0 {
			return fmt.Errorf("%s: a stacked chart's values must not be negative, got %v", where, p.Y)
		}
	}
	return nil
}

func sameX(a, b []Point) bool {
	return slices.EqualFunc(a, b, func(p, q Point) bool { return p.X == q.X })
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
