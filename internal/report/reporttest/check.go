package reporttest

import (
	"math"
	"reflect"
	"strconv"
	"testing"

	"tierbench/internal/report/chart"
)

// CheckClean fails t for each console error, uncaught exception and failed
// request, and for any request but the page itself: a report opens offline.
func (p *Page) CheckClean(t testing.TB) {
	t.Helper()
	for _, e := range p.Errors {
		t.Errorf("%s logged an error: %s", p.URL, e)
	}
	for _, f := range p.Failed {
		t.Errorf("%s: a request failed: %s", p.URL, f)
	}
	for _, r := range p.Requests {
		if r != p.URL {
			t.Errorf("%s requested %s: a report must need nothing but itself", p.URL, r)
		}
	}
}

// CheckTablesShow fails t for each table (not a chart's data) of which some width is
// hidden past its box's edge in the window the page was opened in: a table takes the
// page's width before it scrolls, and its text wraps.
func (p *Page) CheckTablesShow(t testing.TB) {
	t.Helper()
	for _, tb := range p.Tables {
		if !tb.InChart && tb.Hidden > 0 {
			t.Errorf("%s: table %s is cut off: %g px of it are hidden in a %gx%g window", p.URL, tb.Name, tb.Hidden, p.Width, p.Height)
		}
	}
}

// Table is the table named name; it fails t when the page has none.
func (p *Page) Table(t testing.TB, name string) *Table {
	t.Helper()
	for i := range p.Tables {
		if p.Tables[i].Name == name && !p.Tables[i].InChart {
			return &p.Tables[i]
		}
	}
	t.Fatalf("%s has no table %q", p.URL, name)
	return nil
}

// ChartNamed is the chart named name among charts (a report's Document.Charts, which
// a test reads before or without a browser); it fails t when there is none.
func ChartNamed(t testing.TB, charts []*chart.Chart, name string) *chart.Chart {
	t.Helper()
	for _, c := range charts {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("the report has no chart %s", name)
	return nil
}

// Count is the number of marks of kind that series drew.
func (c Chart) Count(series int, kind chart.Mark) int {
	n := 0
	for _, m := range c.Marks {
		if m.Series == series && m.Kind == kind {
			n++
		}
	}
	return n
}

// CheckCharts checks that the page shows exactly charts, in order, and for each:
// the drawing has a non-empty box; each series drew the marks chart.ExpectedMarks
// counts, none of them empty, and a line through as many vertices as the series has
// points; the page's JSON is the chart; the data table under it shows chart.Data().
func (p *Page) CheckCharts(t testing.TB, charts []*chart.Chart) {
	t.Helper()
	if len(p.Charts) != len(charts) {
		t.Errorf("%s shows %d charts, want %d", p.URL, len(p.Charts), len(charts))
		return
	}
	for i, want := range charts {
		got := p.Charts[i]
		if got.Name != want.Name {
			t.Errorf("chart %d is %q, want %q", i, got.Name, want.Name)
			continue
		}
		if !(got.Width > 0 && got.Height > 0) {
			t.Errorf("chart %s: drawn box %gx%g, want a visible chart", got.Name, got.Width, got.Height)
		}
		counts := map[chart.SeriesMark]int{}
		for _, m := range got.Marks {
			counts[chart.SeriesMark{Series: m.Series, Mark: m.Kind}]++
			if m.Width <= 0 && m.Height <= 0 {
				t.Errorf("chart %s: series %d drew an empty %s", got.Name, m.Series, m.Kind)
			}
			if m.Kind == chart.MarkLine && m.Series < len(want.Series) && m.Vertices != len(want.Series[m.Series].Points) {
				t.Errorf("chart %s: series %d's line has %d vertices, want %d", got.Name, m.Series, m.Vertices, len(want.Series[m.Series].Points))
			}
		}
		for _, d := range want.MarkDifferences(counts) {
			t.Error(d)
		}
		if !reflect.DeepEqual(&got.Data, want) {
			t.Errorf("chart %s: the page's data differ from the chart's", got.Name)
		}
		p.checkDataTable(t, want)
	}
}

func (p *Page) checkDataTable(t testing.TB, c *chart.Chart) {
	t.Helper()
	var tbl *Table
	for i := range p.Tables {
		if p.Tables[i].Name == c.Name && p.Tables[i].InChart {
			tbl = &p.Tables[i]
		}
	}
	if tbl == nil {
		t.Errorf("chart %s has no data table", c.Name)
		return
	}
	data := c.Data()
	if len(tbl.Headings) != len(data.Columns)+1 || tbl.Headings[0] != c.XColumn() {
		t.Errorf("chart %s: data table headings %q, want %q and %q", c.Name, tbl.Headings, c.XColumn(), data.Columns)
	}
	if len(tbl.Rows) != len(data.Rows) {
		t.Errorf("chart %s: data table has %d rows, want %d", c.Name, len(tbl.Rows), len(data.Rows))
		return
	}
	for r, want := range data.Rows {
		row := tbl.Rows[r]
		if len(row) != len(want.Values)+1 || row[0].Text != want.X {
			t.Errorf("chart %s: data row %d is %+v, want x %q and %d values", c.Name, r, row, want.X, len(want.Values))
			continue
		}
		for j, v := range want.Values {
			checkNumber(t, c.Name, r, j+1, row[j+1], v)
		}
	}
}

// checkNumber compares a shown number with v: the exact value, and the text
// chart.FormatNumber writes; NaN is a cell without a value or a number.
func checkNumber(t testing.TB, table string, r, col int, e Entry, v float64) {
	t.Helper()
	shown := "none"
	if e.Value != nil {
		shown = strconv.FormatFloat(*e.Value, 'g', -1, 64)
	}
	if math.IsNaN(v) {
		if _, err := strconv.ParseFloat(e.Text, 64); e.Value != nil || err == nil {
			t.Errorf("%s row %d column %d: %q (value %s), want no number", table, r, col, e.Text, shown)
		}
		return
	}
	if e.Value == nil || *e.Value != v || e.Text != chart.FormatNumber(v) {
		t.Errorf("%s row %d column %d: %q (value %s), want %v shown as %q", table, r, col, e.Text, shown, v, chart.FormatNumber(v))
	}
}
