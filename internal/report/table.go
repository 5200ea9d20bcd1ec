package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"

	"tierbench/internal/report/chart"
)

// Table is a table of a report: in the page each number carries its exact value
// (data-value) next to the text the reader sees.
type Table struct {
	// Name identifies the table in the page (data-table) and in its CSV file name;
	// the same characters as a chart name.
	Name    string
	Title   string
	Columns []Column
	Rows    [][]Entry
	// Note is shown under the table: definitions, what a dash means.
	Note string
}

// Column is a column's heading: "Label (Unit)".
type Column struct {
	Label string
	Unit  string
}

// Heading is the column's heading as shown.
func (c Column) Heading() string { return chart.Axis{Label: c.Label, Unit: c.Unit}.Title() }

// Entry is one cell of a table (Cell is a study's configuration).
type Entry struct {
	// Text is what the reader sees.
	Text string
	// Value is the exact number Text shows; nil for text and for missing numbers.
	Value *float64
	// Class marks the cell for the page's style: ClassBetter, ClassWorse,
	// ClassBaseline.
	Class string
}

// Classes of an entry.
const (
	ClassBetter   = "better"
	ClassWorse    = "worse"
	ClassBaseline = "baseline"
)

// Missing is the text of a number that does not exist (a standard deviation of one
// repetition, a failed cell).
const Missing = "–"

// Text is an entry of text.
func Text(s string) Entry { return Entry{Text: s} }

// Number is an entry showing v with chart.FormatNumber (6 significant digits); NaN or
// an infinity is Missing.
func Number(v float64) Entry { return NumberAs(v, chart.FormatNumber(v)) }

// Percent is an entry showing v as a signed percentage with two decimals: "+18.87%".
func Percent(v float64) Entry { return NumberAs(v, fmt.Sprintf("%+.2f%%", v)) }

// PValue is an entry showing a p-value with three significant digits.
func PValue(p float64) Entry { return NumberAs(p, strconv.FormatFloat(p, 'g', 3, 64)) }

// NumberAs is an entry showing text for the number v; NaN or an infinity is Missing.
func NumberAs(v float64, text string) Entry {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Entry{Text: Missing}
	}
	return Entry{Text: text, Value: &v}
}

// NewTable starts a table with its columns.
func NewTable(name, title string, columns ...Column) *Table {
	return &Table{Name: name, Title: title, Columns: columns}
}

// AddRow appends a row and returns the table, so calls chain.
func (t *Table) AddRow(cells ...Entry) *Table {
	t.Rows = append(t.Rows, cells)
	return t
}

// Validate checks the name and that every row has an entry per column.
func (t *Table) Validate() error {
	if err := chart.CheckName(t.Name); err != nil {
		return fmt.Errorf("table %q: %w", t.Name, err)
	}
	if len(t.Columns) == 0 {
		return fmt.Errorf("table %q: no columns", t.Name)
	}
	for i, r := range t.Rows {
		if len(r) != len(t.Columns) {
			return fmt.Errorf("table %q: row %d has %d cells for %d columns", t.Name, i+1, len(r), len(t.Columns))
		}
	}
	return nil
}

// WriteCSV writes the table as CSV: the headings, then each row with the exact
// value of every number (shortest form that reads back the same float64) and the
// text of other cells; a missing number is empty.
func (t *Table) WriteCSV(w io.Writer) error {
	if err := t.Validate(); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	head := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = c.Heading()
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range t.Rows {
		rec := make([]string, len(r))
		for i, c := range r {
			switch {
			case c.Value != nil:
				rec[i] = exact(*c.Value)
			case c.Text != Missing:
				rec[i] = c.Text
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// exact writes v so that it parses back to the same float64.
func exact(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
