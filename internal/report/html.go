package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"math"

	"tierbench/internal/report/chart"
)

//go:embed report.css
var css string

//go:embed report.html.tmpl
var pageTemplate string

var page = template.Must(template.New("page").Parse(pageTemplate))

// The page's view of the document: what the template reads.
type (
	pageView struct {
		Title, Subtitle string
		CSS             template.CSS
		Sections        []sectionView
	}
	sectionView struct {
		ID, Title string
		Level     int
		Blocks    []blockView
		Sections  []sectionView
	}
	blockView struct {
		Text, Pre  string
		Plan       *Plan
		Table      *tableView
		Chart      *chartView
		Highlights []highlightView
		Multiples  []chartView
	}
	highlightView struct {
		Title, Text, Value, Unit, What string
	}
	tableView struct {
		Name, Title, Note string
		Headings          []string
		Rows              [][]cellView
	}
	cellView struct {
		Text, Class string
		// Value is the exact number ("" for text): the page's data-value.
		Value   string
		Numeric bool
	}
	chartView struct {
		Name, Note string
		SVG        template.HTML
		JSON       template.JS
		Data       tableView
		Figures    bool
	}
)

// html renders the page; figures adds links to the figure files Write puts beside it.
// A chart's points that are no number (a figure missing from a run) are left out of
// it first, and its note says so (chart.LeaveOutNonFinite): one missing figure must
// not cost the whole report.
func (d *Document) html(figures bool) ([]byte, error) {
	for _, c := range d.Charts() {
		c.LeaveOutNonFinite()
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	v := pageView{Title: d.Title, Subtitle: d.Subtitle, CSS: template.CSS(css)}
	var err error
	var sections func(ss []*Section, level int, prefix string) []sectionView
	sections = func(ss []*Section, level int, prefix string) []sectionView {
		var out []sectionView
		for i, s := range ss {
			sv := sectionView{ID: fmt.Sprintf("%s%d", prefix, i+1), Title: s.Title, Level: level}
			for _, b := range s.Blocks {
				bv := blockView{Text: b.Text, Pre: b.Pre, Plan: b.Plan}
				if b.Table != nil {
					tv := tableOf(b.Table)
					bv.Table = &tv
				}
				if b.Chart != nil && err == nil {
					var cv chartView
					cv, err = d.chartOf(b.Chart, d.Size, figures)
					bv.Chart = &cv
				}
				for _, c := range b.Multiples {
					if err == nil {
						var cv chartView
						cv, err = d.chartOf(c, d.SmallSize, figures)
						bv.Multiples = append(bv.Multiples, cv)
					}
				}
				for _, h := range b.Highlights {
					e := Number(h.Value)
					bv.Highlights = append(bv.Highlights, highlightView{Title: h.Title, Text: e.Text, Unit: h.Unit, What: h.What})
					if e.Value != nil {
						bv.Highlights[len(bv.Highlights)-1].Value = exact(*e.Value)
					}
				}
				sv.Blocks = append(sv.Blocks, bv)
			}
			sv.Sections = sections(s.Sections, level+1, sv.ID+"-")
			out = append(out, sv)
		}
		return out
	}
	v.Sections = sections(d.Sections, 2, "s")
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, v); err != nil {
		return nil, fmt.Errorf("report %q: %w", d.Title, err)
	}
	return buf.Bytes(), nil
}

func tableOf(t *Table) tableView {
	tv := tableView{Name: t.Name, Title: t.Title, Note: t.Note}
	for _, c := range t.Columns {
		tv.Headings = append(tv.Headings, c.Heading())
	}
	for _, r := range t.Rows {
		row := make([]cellView, len(r))
		for i, c := range r {
			row[i] = cellView{Text: c.Text, Class: c.Class, Numeric: c.Value != nil || c.Text == Missing}
			if c.Value != nil {
				row[i].Value = exact(*c.Value)
			}
		}
		tv.Rows = append(tv.Rows, row)
	}
	return tv
}

func (d *Document) chartOf(c *chart.Chart, size chart.Size, figures bool) (chartView, error) {
	svg, err := c.InlineSVG(size)
	if err != nil {
		return chartView{}, err
	}
	js, err := json.Marshal(c)
	if err != nil {
		return chartView{}, fmt.Errorf("chart %q: %w", c.Name, err)
	}
	return chartView{
		Name: c.Name, Note: c.Note, Figures: figures,
		SVG: template.HTML(svg),
		// json.Marshal writes <, > and & as \u escapes, so the data cannot end the
		// script element.
		JSON: template.JS(js),
		Data: dataTableOf(c),
	}, nil
}

// dataTableOf is the table of the exact numbers under a chart.
func dataTableOf(c *chart.Chart) tableView {
	data := c.Data()
	t := &Table{Name: c.Name, Columns: []Column{{Label: c.XColumn()}}}
	for _, col := range data.Columns {
		t.Columns = append(t.Columns, Column{Label: col})
	}
	for _, r := range data.Rows {
		row := []Entry{Text(r.X)}
		if !math.IsNaN(r.XValue) {
			row[0] = NumberAs(r.XValue, r.X)
		}
		for _, v := range r.Values {
			row = append(row, Number(v))
		}
		t.Rows = append(t.Rows, row)
	}
	return tableOf(t)
}
