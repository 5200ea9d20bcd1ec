package chart

import (
	"math"
	"slices"
)

// DataTable is every number a chart draws, one row per x value (or category), for
// the table under the chart in a report.
type DataTable struct {
	// Columns names the columns after the first (x): for each series its name, and
	// "NAME 95% CI low" and "NAME 95% CI high" after it when it has error bars.
	Columns []string
	Rows    []DataRow
}

// DataRow is one x value or category.
type DataRow struct {
	// X is the category, or the x value written with FormatNumber.
	X string
	// XValue is the x value, NaN for a category.
	XValue float64
	// Values holds one number per column; NaN where the series has no point.
	Values []float64
}

// XColumn is the title of the table's first column: the x axis title.
func (c *Chart) XColumn() string { return c.X.Title() }

// Data lists the chart's numbers: the values the caller gave (a stacked chart's
// components, not their running totals), in the order of the categories or of x.
func (c *Chart) Data() DataTable {
	var t DataTable
	type col struct {
		series int
		get    func(Point) float64
	}
	var cols []col
	for si, s := range c.Series {
		t.Columns = append(t.Columns, s.Name)
		cols = append(cols, col{si, func(p Point) float64 { return p.Y }})
		if slices.ContainsFunc(s.Points, Point.HasCI) {
			t.Columns = append(t.Columns, s.Name+" 95% CI low", s.Name+" 95% CI high")
			cols = append(cols,
				col{si, func(p Point) float64 { return orNaN(p.Low) }},
				col{si, func(p Point) float64 { return orNaN(p.High) }})
		}
	}
	var xs []float64
	if c.Kind.categorical() {
		for i := range c.Categories {
			xs = append(xs, float64(i))
		}
	} else {
		for _, s := range c.Series {
			for _, p := range s.Points {
				xs = append(xs, p.X)
			}
		}
		slices.Sort(xs)
		xs = slices.Compact(xs)
	}
	row := make(map[float64]int, len(xs))
	for i, x := range xs {
		r := DataRow{X: FormatNumber(x), XValue: x, Values: make([]float64, len(cols))}
		if c.Kind.categorical() {
			r.X, r.XValue = c.Categories[i], math.NaN()
		}
		for j := range r.Values {
			r.Values[j] = math.NaN()
		}
		t.Rows = append(t.Rows, r)
		row[x] = i
	}
	for j, cl := range cols {
		for _, p := range c.Series[cl.series].Points {
			if i, ok := row[p.X]; ok {
				t.Rows[i].Values[j] = cl.get(p)
			}
		}
	}
	return t
}

func orNaN(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// Sample is one line of a monitoring series: seconds since the run started and the
// values sampled then, by name (a metrics.jsonl line, decoded by the caller).
type Sample struct {
	T      float64
	Values map[string]float64
}

// SeriesOf is one series to take from samples: the value named Key, shown as Name
// (Key when empty), multiplied by Scale (1 when 0: e.g. 100 for a ratio as %).
type SeriesOf struct {
	Key, Name string
	Scale     float64
}

// FromSamples makes a TimeSeries (or, with kind StackedArea, a stacked) chart of the
// named values of samples over their T. Samples must be in time order; a sample
// without a value (or with NaN) leaves that series out at that time. A stacked
// chart needs every value in every sample; Validate says which one is missing.
func FromSamples(kind Kind, name, title string, y Axis, samples []Sample, series ...SeriesOf) *Chart {
	c := New(kind, name, title, Axis{Label: "time since start", Unit: "s"}, y)
	for _, so := range series {
		scale := so.Scale
		if scale == 0 {
			scale = 1
		}
		label := so.Name
		if label == "" {
			label = so.Key
		}
		pts := make([]Point, 0, len(samples))
		for _, s := range samples {
			if v, ok := s.Values[so.Key]; ok && !math.IsNaN(v) {
				pts = append(pts, XY(s.T, v*scale))
			}
		}
		c.Add(label, pts...)
	}
	return c
}
