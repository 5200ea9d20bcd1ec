package study

import (
	"fmt"
	"math"
	"strings"

	"tierbench/internal/report"
)

// Findings are the comparisons with the baseline in words, one per cell and
// headline metric, by its title: "TPS: placement=III is 18.87% faster than
// placement=I at benchmark=tpcc-2 (p = 0.012, significant)". A metric where higher is better is
// faster or slower; one where lower is better (a time) is lower or higher. Cells
// without a comparison (the baselines, cells with no successful run on either side)
// have none.
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
			if cmp == nil || !ok || math.IsNaN(cmp.DiffPct) {
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
			word := "faster"
			switch {
			case m.LowerIsBetter && cmp.DiffPct <= 0:
				word = "lower"
			case m.LowerIsBetter:
				word = "higher"
			case cmp.DiffPct < 0:
				word = "slower"
			}
			s := fmt.Sprintf("%s: %s is %.2f%% %s than %s", m.Label, strings.Join(differ, " "), math.Abs(cmp.DiffPct), word, strings.Join(baseLevels, " "))
			if len(same) > 0 {
				s += " at " + strings.Join(same, " ")
			}
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
