package report

import (
	"fmt"
	"os"
	"path/filepath"

	"tierbench/internal/metrics"
	"tierbench/internal/report/chart"
	"tierbench/internal/rundir"
)

// Document is one self-contained HTML report: a title and sections of text, plans,
// tables and charts. Build it with New and the Add methods, then Write it.
type Document struct {
	Title string
	// Subtitle is shown under the title (what was run, when, with which tierbench).
	Subtitle string
	// Size is the size of every chart, inline and in the figure files, but those of
	// small multiples, which are SmallSize.
	Size, SmallSize chart.Size
	Sections        []*Section
}

// Section is a titled part of a document; sections nest one level (h2, then h3).
type Section struct {
	Title    string
	Blocks   []Block
	Sections []*Section
}

// Block is one element of a section: exactly one field is set.
type Block struct {
	Text  string
	Pre   string
	Plan  *Plan
	Table *Table
	Chart *chart.Chart
	// Highlights are a few numbers shown large, side by side: a run's headline.
	Highlights []Highlight
	// Multiples are small charts side by side, two to a row on a wide page: the
	// run at a glance.
	Multiples []*chart.Chart
}

// Highlight is a number shown large with its title and unit: "TPS 1469.63
// transactions/s".
type Highlight struct {
	Title string
	Value float64
	Unit  string
	// What says what it counts (shown on hover).
	What string
}

// Plan describes what was run: a description, the settings as a list, and the file
// it came from.
type Plan struct {
	Description string
	Items       []Item
	// Source is the study file (or the command line) verbatim, shown folded.
	Source string
}

// Item is one setting of a plan: "Repetitions: 2".
type Item struct {
	Key, Value string
}

// SmallSize is the size of a small multiple: half a page's width, so that two rows
// of two fit on one screen with the headline above them.
var SmallSize = chart.Size{Width: 5, Height: 2.3, DPI: 150}

// New starts a document with the default chart sizes.
func New(title string) *Document {
	return &Document{Title: title, Size: chart.DefaultSize, SmallSize: SmallSize}
}

// Section appends a section to the document.
func (d *Document) Section(title string) *Section {
	s := &Section{Title: title}
	d.Sections = append(d.Sections, s)
	return s
}

// Section appends a subsection.
func (s *Section) Section(title string) *Section {
	sub := &Section{Title: title}
	s.Sections = append(s.Sections, sub)
	return sub
}

// AddText appends paragraphs of text.
func (s *Section) AddText(paragraphs ...string) *Section {
	for _, p := range paragraphs {
		s.Blocks = append(s.Blocks, Block{Text: p})
	}
	return s
}

// AddPre appends preformatted text (a run's text summary).
func (s *Section) AddPre(text string) *Section {
	s.Blocks = append(s.Blocks, Block{Pre: text})
	return s
}

// AddPlan appends a plan block.
func (s *Section) AddPlan(p Plan) *Section {
	s.Blocks = append(s.Blocks, Block{Plan: &p})
	return s
}

// AddTable appends a table.
func (s *Section) AddTable(t *Table) *Section {
	s.Blocks = append(s.Blocks, Block{Table: t})
	return s
}

// AddChart appends a chart; its figure files are figures/NAME.png and .svg.
func (s *Section) AddChart(c *chart.Chart) *Section {
	s.Blocks = append(s.Blocks, Block{Chart: c})
	return s
}

// AddHighlights appends numbers shown large, side by side.
func (s *Section) AddHighlights(h ...Highlight) *Section {
	s.Blocks = append(s.Blocks, Block{Highlights: h})
	return s
}

// AddMultiples appends small charts side by side (Document.SmallSize); their figure
// files are figures/NAME.png and .svg, at that size.
func (s *Section) AddMultiples(cs ...*chart.Chart) *Section {
	s.Blocks = append(s.Blocks, Block{Multiples: cs})
	return s
}

// Charts lists the document's charts in the order they appear, small multiples
// included.
func (d *Document) Charts() []*chart.Chart {
	var out []*chart.Chart
	d.walk(func(b Block) {
		if b.Chart != nil {
			out = append(out, b.Chart)
		}
		out = append(out, b.Multiples...)
	})
	return out
}

// sizes is the size each chart is drawn at, by name.
func (d *Document) sizes() map[string]chart.Size {
	out := map[string]chart.Size{}
	d.walk(func(b Block) {
		if b.Chart != nil {
			out[b.Chart.Name] = d.Size
		}
		for _, c := range b.Multiples {
			out[c.Name] = d.SmallSize
		}
	})
	return out
}

// Tables lists the document's tables in the order they appear.
func (d *Document) Tables() []*Table {
	var out []*Table
	d.walk(func(b Block) {
		if b.Table != nil {
			out = append(out, b.Table)
		}
	})
	return out
}

func (d *Document) walk(f func(Block)) {
	var rec func([]*Section)
	rec = func(ss []*Section) {
		for _, s := range ss {
			for _, b := range s.Blocks {
				f(b)
			}
			rec(s.Sections)
		}
	}
	rec(d.Sections)
}

// Validate checks every chart, table and highlight, and that the charts' and tables'
// names are unique (they name files and page elements).
func (d *Document) Validate() error {
	if d.Title == "" {
		return fmt.Errorf("report: the document has no title")
	}
	charts, tables := map[string]bool{}, map[string]bool{}
	for _, c := range d.Charts() {
		if err := c.Validate(); err != nil {
			return fmt.Errorf("report %q: %w", d.Title, err)
		}
		if charts[c.Name] {
			return fmt.Errorf("report %q: two charts are named %q", d.Title, c.Name)
		}
		charts[c.Name] = true
	}
	var err error
	d.walk(func(b Block) {
		for i, h := range b.Highlights {
			if h.Title == "" && err == nil {
				err = fmt.Errorf("report %q: highlight %d has no title", d.Title, i+1)
			}
		}
	})
	if err != nil {
		return err
	}
	for _, t := range d.Tables() {
		if err := t.Validate(); err != nil {
			return fmt.Errorf("report %q: %w", d.Title, err)
		}
		if tables[t.Name] {
			return fmt.Errorf("report %q: two tables are named %q", d.Title, t.Name)
		}
		tables[t.Name] = true
	}
	return nil
}

// Write writes the report into dir: every chart as figures/NAME.svg and
// figures/NAME.png, then report.html, which links to them but needs none of them
// to show. Each file is written atomically, so an earlier report stays whole until
// its replacement is.
func (d *Document) Write(dir string) error {
	page, err := d.html(true)
	if err != nil {
		return err
	}
	figs := filepath.Join(dir, rundir.FiguresDir)
	if err := os.MkdirAll(figs, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	sizes := d.sizes()
	for _, c := range d.Charts() {
		svg, err := c.SVG(sizes[c.Name])
		if err != nil {
			return err
		}
		if err := metrics.WriteFile(filepath.Join(figs, c.Name+".svg"), svg); err != nil {
			return err
		}
		png, err := c.PNG(sizes[c.Name])
		if err != nil {
			return err
		}
		if err := metrics.WriteFile(filepath.Join(figs, c.Name+".png"), png); err != nil {
			return err
		}
	}
	return metrics.WriteFile(filepath.Join(dir, rundir.ReportFile), page)
}

// HTML renders the page alone, without links to figure files.
func (d *Document) HTML() ([]byte, error) { return d.html(false) }
