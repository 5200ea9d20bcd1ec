package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"tierbench/internal/metrics"
	"tierbench/internal/report/quantity"
	"tierbench/internal/report/stats"
)

// Factor is one factor's value in a cell: engine=postgres.
type Factor struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Cell is one configuration of a study and what each of its repetitions measured.
type Cell struct {
	// ID names the cell; empty: its factors, "engine=postgres placement=I".
	ID      string   `json:"id"`
	Factors []Factor `json:"factors"`
	Runs    []Run    `json:"runs"`
}

// Run is one repetition of a cell.
type Run struct {
	Repetition int `json:"repetition"`
	// Dir is the run's directory (its result.json), for the reader.
	Dir string `json:"dir,omitempty"`
	// Error is why the run failed; a failed run's metrics are not summarised.
	Error string `json:"error,omitempty"`
	// Metrics holds the run's numbers by Metric.Key; a metric the run does not have is
	// absent.
	Metrics map[string]float64 `json:"metrics"`
}

// Failed reports whether the run failed.
func (r Run) Failed() bool { return r.Error != "" }

// Metric is one number a study reports per run.
type Metric struct {
	// Key is the metric's key in Run.Metrics ("tpm", "qphh_at_size").
	Key   string `json:"key"`
	Label string `json:"label"`
	Unit  string `json:"unit,omitempty"`
	// LowerIsBetter marks latencies, energy and CO2: a significant fall is shown as
	// better.
	LowerIsBetter bool `json:"lower_is_better,omitempty"`
	// Range is the values the metric can take, which its confidence intervals and
	// its chart's axis keep within. Summarise sets it, when it is the zero Range, to
	// its unit's in package quantity's registry.
	Range quantity.Range `json:"range"`
}

// withRange is m with its range: its own, or its unit's.
func (m Metric) withRange() Metric {
	if m.Range == (quantity.Range{}) {
		m.Range = quantity.Of(m.Unit)
	}
	return m
}

// CellID is the ID of a cell: its ID, or its factors as "name=value" joined by spaces.
func (c Cell) CellID() string {
	if c.ID != "" {
		return c.ID
	}
	parts := make([]string, len(c.Factors))
	for i, f := range c.Factors {
		parts[i] = f.Name + "=" + f.Value
	}
	return strings.Join(parts, " ")
}

// Factor is the value of the factor name ("" when the cell does not have it).
func (c Cell) Factor(name string) string {
	for _, f := range c.Factors {
		if f.Name == name {
			return f.Value
		}
	}
	return ""
}

// Values are the metric's values over the cell's successful runs, in run order.
func (c Cell) Values(key string) []float64 {
	var out []float64
	for _, r := range c.Runs {
		if v, ok := r.Metrics[key]; ok && !r.Failed() {
			out = append(out, v)
		}
	}
	return out
}

// Summary is every cell's statistics per metric and its comparison with the
// baseline: what summary.json holds and what the tables and charts show.
type Summary struct {
	// Baseline is the ID of the cell the others are compared with ("" for none), or,
	// with a baseline per group of cells (SummariseAgainst), what the baselines are.
	Baseline string        `json:"baseline,omitempty"`
	Metrics  []Metric      `json:"metrics"`
	Factors  []string      `json:"factors"`
	Cells    []CellSummary `json:"cells"`
}

// CellSummary is one cell in a Summary.
type CellSummary struct {
	ID      string   `json:"id"`
	Factors []Factor `json:"factors"`
	// Against is the ID of the cell this one is compared with: the baseline, or
	// with SummariseAgainst its group's; its own ID for a baseline, "" for none.
	Against string `json:"against,omitempty"`
	// Runs counts the cell's repetitions, Failed those that failed.
	Runs    int                      `json:"runs"`
	Failed  int                      `json:"failed"`
	Errors  []string                 `json:"errors,omitempty"`
	Metrics map[string]MetricSummary `json:"metrics"`
}

// MetricSummary is one metric of one cell.
type MetricSummary struct {
	// Values are the successful runs' values, in run order.
	Values []float64     `json:"values"`
	Stats  stats.Summary `json:"stats"`
	// VsBaseline compares the cell with the baseline; nil for the baseline itself
	// and when there is no baseline.
	VsBaseline *stats.Comparison `json:"vs_baseline,omitempty"`
}

// Summarise computes the statistics of every metric of every cell, each interval
// within the metric's range, and compares each cell with the baseline cell (an ID; ""
// for none). An error names the cell, run or metric at fault: two cells with one ID,
// a baseline that is not a cell, a metric given twice, a value that is not a finite
// number.
func Summarise(cells []Cell, ms []Metric, baseline string) (*Summary, error) {
	s := &Summary{Baseline: baseline, Metrics: make([]Metric, len(ms))}
	for i, m := range ms {
		s.Metrics[i] = m.withRange()
	}
	ms = s.Metrics
	keys := map[string]bool{}
	for _, m := range ms {
		if m.Key == "" || keys[m.Key] {
			return nil, fmt.Errorf("summary: metric %q is empty or given twice", m.Key)
		}
		keys[m.Key] = true
	}
	ids := map[string]int{}
	for i, c := range cells {
		id := c.CellID()
		if j, dup := ids[id]; dup {
			return nil, fmt.Errorf("summary: cells %d and %d are both %q", j+1, i+1, id)
		}
		ids[id] = i
		for _, f := range c.Factors {
			if !slices.Contains(s.Factors, f.Name) {
				s.Factors = append(s.Factors, f.Name)
			}
		}
		for _, r := range c.Runs {
			for k, v := range r.Metrics {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("summary: cell %q repetition %d: metric %q is %v, not a number", id, r.Repetition, k, v)
				}
			}
		}
	}
	var base *Cell
	if baseline != "" {
		i, ok := ids[baseline]
		if !ok {
			return nil, fmt.Errorf("summary: the baseline %q is not a cell; cells are %q", baseline, cellIDs(cells))
		}
		base = &cells[i]
	}
	for _, c := range cells {
		cs := CellSummary{ID: c.CellID(), Factors: c.Factors, Against: baseline, Runs: len(c.Runs), Metrics: map[string]MetricSummary{}}
		for _, r := range c.Runs {
			if r.Failed() {
				cs.Failed++
				cs.Errors = append(cs.Errors, fmt.Sprintf("repetition %d: %s", r.Repetition, r.Error))
			}
		}
		for _, m := range ms {
			vals := c.Values(m.Key)
			ms := MetricSummary{Values: vals, Stats: stats.Summarise(vals, m.Range)}
			if base != nil && cs.ID != baseline {
				cmp := stats.Compare(base.Values(m.Key), vals)
				ms.VsBaseline = &cmp
			}
			cs.Metrics[m.Key] = ms
		}
		s.Cells = append(s.Cells, cs)
	}
	return s, nil
}

func cellIDs(cells []Cell) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = c.CellID()
	}
	return out
}

// Metric is the metric of key ("", false when the summary has none).
func (s *Summary) Metric(key string) (Metric, bool) {
	i := slices.IndexFunc(s.Metrics, func(m Metric) bool { return m.Key == key })
	if i < 0 {
		return Metric{}, false
	}
	return s.Metrics[i], true
}

// Varying lists the factors that take more than one value over the cells, in the
// order the cells give them: the ones worth a column or a legend entry.
func (s *Summary) Varying() []string {
	var out []string
	for _, f := range s.Factors {
		seen := map[string]bool{}
		for _, c := range s.Cells {
			seen[factorOf(c.Factors, f)] = true
		}
		if len(seen) > 1 {
			out = append(out, f)
		}
	}
	return out
}

func factorOf(fs []Factor, name string) string { return Cell{Factors: fs}.Factor(name) }

// WriteJSON writes the summary to path atomically (summary.json).
func (s *Summary) WriteJSON(path string) error { return metrics.WriteJSONFile(path, s) }

// WriteCellsCSV writes one row per run of every cell (cells.csv): the cell's ID, one
// column per factor, the repetition, "ok" or "failed", the error, the run's
// directory and one column per metric with its exact value (empty when the run has
// none).
func WriteCellsCSV(w io.Writer, cells []Cell, ms []Metric) error {
	var factors []string
	for _, c := range cells {
		for _, f := range c.Factors {
			if !slices.Contains(factors, f.Name) {
				factors = append(factors, f.Name)
			}
		}
	}
	cw := csv.NewWriter(w)
	head := append([]string{"cell"}, factors...)
	head = append(head, "repetition", "status", "error", "dir")
	for _, m := range ms {
		head = append(head, m.Key)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, c := range cells {
		for _, r := range c.Runs {
			rec := []string{c.CellID()}
			for _, f := range factors {
				rec = append(rec, c.Factor(f))
			}
			status := "ok"
			if r.Failed() {
				status = "failed"
			}
			rec = append(rec, fmt.Sprint(r.Repetition), status, r.Error, r.Dir)
			for _, m := range ms {
				v, ok := r.Metrics[m.Key]
				if ok {
					rec = append(rec, exact(v))
				} else {
					rec = append(rec, "")
				}
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
