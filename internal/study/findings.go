package study

import (
	"fmt"
	"math"
	"strings"

	"tierbench/internal/report"
)

// Findings are the comparisons with the baseline in words, one per cell and
// headline metric, by its title: "TPS: placement=III is 18.87% faster than
// placement=I at benchmark=tpcc-2 (p = 0.012, significant)". A metric where higher is
// better is faster or slower; one where lower is better (a time) is lower or higher.
// The baselines have none; a cell that cannot be compared (no successful run of it or
// of its baseline) is said to be not compared, and why.
func (r *Report) Findings() []string {
	var out []string
	byID := r.cellsByID()
	for _, m := range r.Metrics {
		if !r.headline[m.Key] {
			continue
		}
		for _, c := range r.Summary.Cells {
			cmp := c.Metrics[m.Key].VsBaseline
			base, ok := byID[c.Against]
			if cmp == nil || !ok {
				continue
			}
			differ, at, baseLevels := r.pairWords(c, base)
			if math.IsNaN(cmp.DiffPct) {
				// Said, not dropped: a reader of the findings must not take the
				// cell's silence for no difference.
				why := "its baseline's mean is 0"
				switch {
				case c.Metrics[m.Key].Stats.N == 0:
					why = "it has no successful run"
				case base.Metrics[m.Key].Stats.N == 0:
					why = "its baseline has no successful run"
				}
				out = append(out, fmt.Sprintf("%s: %s%s is not compared with %s: %s", m.Label, differ, at, baseLevels, why))
				continue
			}
			out = append(out, fmt.Sprintf("%s: %s (%s)", m.Label, differenceWords(m, differ, cmp.DiffPct, baseLevels, at),
				testWords(cmp.P, cmp.Significant, "fewer than two repetitions on a side, or no spread")))
		}
	}
	return out
}

// pairWords names a cell against its baseline cell: the levels where they differ
// ("data=hdd-7200", and the baseline's "data=sata-ssd"), and " at " the levels they
// share of the factors that vary ("users=1").
func (r *Report) pairWords(c, base report.CellSummary) (differ, at, baseLevels string) {
	var d, same, b []string
	for i, f := range c.Factors {
		if i < len(base.Factors) && base.Factors[i].Value != f.Value {
			d = append(d, f.Name+"="+f.Value)
		} else if len(r.varying[f.Name]) > 1 {
			same = append(same, f.Name+"="+f.Value)
		}
	}
	for i, f := range base.Factors {
		if i < len(c.Factors) && c.Factors[i].Value != f.Value {
			b = append(b, f.Name+"="+f.Value)
		}
	}
	if len(same) > 0 {
		at = " at " + strings.Join(same, " ")
	}
	return strings.Join(d, " "), at, strings.Join(b, " ")
}

// differenceWords is a finding's claim: "data=hdd-7200 is 12.50% slower than
// data=sata-ssd at users=1". The findings and the within-hosts lines say it alike.
func differenceWords(m report.Metric, differ string, diffPct float64, base, at string) string {
	return fmt.Sprintf("%s is %.2f%% %s than %s%s", differ, math.Abs(diffPct), directionWord(m, diffPct), base, at)
}

// testWords is what the test of a difference says: "p = 0.012, significant", "p = 0.3,
// not significant", or "untestable: " and why (untestable) when p is NaN.
func testWords(p float64, significant bool, untestable string) string {
	switch {
	case math.IsNaN(p):
		return "untestable: " + untestable
	case significant:
		return fmt.Sprintf("p = %.3g, significant", p)
	}
	return fmt.Sprintf("p = %.3g, not significant", p)
}

// directionWord says which way a difference of diffPct goes: faster or slower for
// a metric where higher is better, lower or higher for one where lower is.
func directionWord(m report.Metric, diffPct float64) string {
	switch {
	case m.LowerIsBetter && diffPct <= 0:
		return "lower"
	case m.LowerIsBetter:
		return "higher"
	case diffPct < 0:
		return "slower"
	}
	return "faster"
}

// cellsByID is the summary's cells by their ID.
func (r *Report) cellsByID() map[string]report.CellSummary {
	byID := map[string]report.CellSummary{}
	for _, c := range r.Summary.Cells {
		byID[c.ID] = c
	}
	return byID
}
