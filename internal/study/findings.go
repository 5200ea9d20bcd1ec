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
	byID := map[string]report.CellSummary{}
	for _, c := range r.Summary.Cells {
		byID[c.ID] = c
	}
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
			var differ, same []string
			for i, f := range c.Factors {
				if i < len(base.Factors) && base.Factors[i].Value != f.Value {
					differ = append(differ, f.Name+"="+f.Value)
				} else if len(r.varying[f.Name]) > 1 {
					same = append(same, f.Name+"="+f.Value)
				}
			}
			var baseLevels []string
			for i, f := range base.Factors {
				if i < len(c.Factors) && c.Factors[i].Value != f.Value {
					baseLevels = append(baseLevels, f.Name+"="+f.Value)
				}
			}
			at := ""
			if len(same) > 0 {
				at = " at " + strings.Join(same, " ")
			}
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
				out = append(out, fmt.Sprintf("%s: %s%s is not compared with %s: %s", m.Label, strings.Join(differ, " "), at, strings.Join(baseLevels, " "), why))
				continue
			}
			word := "faster"
			switch {
			case m.LowerIsBetter && cmp.DiffPct <= 0:
				word = "lower"
			case m.LowerIsBetter:
				word = "higher"
			case cmp.DiffPct < 0:
				word = "slower"
			}
			s := fmt.Sprintf("%s: %s is %.2f%% %s than %s%s", m.Label, strings.Join(differ, " "), math.Abs(cmp.DiffPct), word, strings.Join(baseLevels, " "), at)
			switch {
			case math.IsNaN(cmp.P):
				s += " (untestable: fewer than two repetitions on a side, or no spread)"
			case cmp.Significant:
				s += fmt.Sprintf(" (p = %.3g, significant)", cmp.P)
			default:
				s += fmt.Sprintf(" (p = %.3g, not significant)", cmp.P)
			}
			out = append(out, s)
		}
	}
	return out
}
