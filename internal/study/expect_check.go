package study

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"tierbench/internal/report"
	"tierbench/internal/workload"
)

// claimStep is what a claim reads at one of its steps: the cells of a ratio's two
// sides (numerator first), or the one cell of an order's level or of a trend's level
// of a plain metric.
type claimStep struct {
	// Label names the step: the level of an order or a trend ("" for a ratio).
	Label string
	Cells [][]report.Factor
}

// steps are the cells a claim reads, step by step, each cell as its level of every
// factor fs has: a factor the claim does not name must have one level. The error says
// what the claim leaves open or gives twice.
func (c *Claim) steps(fs []FactorInfo) ([]claimStep, error) {
	side := func(parts ...[]report.Factor) ([]report.Factor, error) {
		given := map[string]string{}
		for _, part := range parts {
			for _, t := range part {
				if _, dup := given[t.Name]; dup {
					return nil, fmt.Errorf("%s is given twice (in a side and in at, or as the factor the claim runs over)", t.Name)
				}
				given[t.Name] = t.Value
			}
		}
		out := make([]report.Factor, 0, len(fs))
		for _, f := range fs {
			v, ok := given[f.Name]
			switch {
			case ok:
			case len(f.Levels) == 1:
				v = f.Levels[0]
			default:
				return nil, fmt.Errorf("%s varies (%s) and the claim does not say which: add at %s=%s", f.Name, strings.Join(f.Levels, ", "), f.Name, f.Levels[len(f.Levels)-1])
			}
			out = append(out, report.Factor{Name: f.Name, Value: v})
		}
		return out, nil
	}
	var out []claimStep
	add := func(label string, level []report.Factor) error {
		var cells [][]report.Factor
		sides := [][]report.Factor{nil}
		if c.Num != nil {
			sides = [][]report.Factor{c.Num, c.Den}
		}
		for _, s := range sides {
			cell, err := side(s, c.At, level)
			if err != nil {
				return err
			}
			cells = append(cells, cell)
		}
		out = append(out, claimStep{Label: label, Cells: cells})
		return nil
	}
	if c.Kind == ClaimRatio {
		if err := add("", nil); err != nil {
			return nil, err
		}
		if cellID(out[0].Cells[0]) == cellID(out[0].Cells[1]) {
			return nil, fmt.Errorf("both sides of the ratio are the same cell")
		}
		return out, nil
	}
	for _, l := range c.Levels {
		if err := add(l, []report.Factor{{Name: c.Factor, Value: l}}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkClaims checks the study's claims against its plan, in the file's words
// (file:line): every factor and level a claim names exists, each of its cells is one
// cell of the study (every factor that varies is named, in a side or in at), a trend
// runs over a numeric factor with two levels or more, and the metric is one the
// cells' workload reports. It returns the claims with their trends' levels in order.
// A claim with a cell that exclude rules remove cannot be judged; the plan says so.
func (e *expansion) checkClaims(plan *Plan) []Claim {
	var out []Claim
	cells := map[string]*Cell{}
	for i := range plan.Cells {
		cells[cellID(plan.Cells[i].Factors)] = &plan.Cells[i]
	}
	for _, c := range e.s.Expect {
		c.Levels = slices.Clone(c.Levels)
		if !e.checkClaimLevels(&c, plan.Factors) {
			continue
		}
		steps, err := c.steps(plan.Factors)
		if err != nil {
			e.p.add(c.TextPos, "%q: %v", c.Text, err)
			continue
		}
		var excluded []string
		ok := true
		for _, st := range steps {
			for _, levels := range st.Cells {
				cell := cells[cellID(levels)]
				if cell == nil {
					excluded = append(excluded, cellID(levels))
					continue
				}
				if err := checkMetric(c.Metric, cell); err != nil && ok {
					e.p.add(c.TextPos, "%q: %v", c.Text, err)
					ok = false
				}
			}
		}
		if !ok {
			continue
		}
		if len(excluded) > 0 {
			plan.Notes = append(plan.Notes, fmt.Sprintf("%s:%d: expect %s cannot be judged: the exclude rules remove %s", e.s.File.Path, c.Pos.Line, c.ID, strings.Join(excluded, " and ")))
		}
		out = append(out, c)
	}
	return out
}

// checkClaimLevels checks that the factors and levels c names exist, and puts a
// trend's levels in numeric order from its first.
func (e *expansion) checkClaimLevels(c *Claim, fs []FactorInfo) bool {
	info := func(name string) *FactorInfo {
		i := slices.IndexFunc(fs, func(f FactorInfo) bool { return f.Name == name })
		if i < 0 {
			return nil
		}
		return &fs[i]
	}
	bad := func(format string, args ...any) bool {
		e.p.add(c.TextPos, "%q: "+format, append([]any{c.Text}, args...)...)
		return false
	}
	level := func(f *FactorInfo, l string) bool {
		if !slices.Contains(f.Levels, l) {
			return bad("%q is not a value of %s: its values are %s", l, f.Name, strings.Join(f.Levels, ", "))
		}
		return true
	}
	for _, part := range [][]report.Factor{c.Num, c.Den, c.At} {
		for _, t := range part {
			f := info(t.Name)
			if f == nil {
				return bad("%q is not a factor: %s", t.Name, e.factorNames())
			}
			if !level(f, t.Value) {
				return false
			}
		}
	}
	if c.Factor == "" {
		return true
	}
	f := info(c.Factor)
	if f == nil {
		return bad("%q is not a factor: %s", c.Factor, e.factorNames())
	}
	if c.Kind == ClaimOrder {
		for _, l := range c.Levels {
			if !level(f, l) {
				return false
			}
		}
		return true
	}
	if !f.Axis.Numeric() {
		return bad("%s's values (%s) are not numbers or sizes: a trend runs over a numeric factor such as sf, users or buffer", f.Name, strings.Join(f.Levels, ", "))
	}
	if c.From != "" && !level(f, c.From) {
		return false
	}
	levels := slices.Clone(f.Levels)
	sort.SliceStable(levels, func(i, j int) bool {
		a, _ := f.Axis.Value(levels[i])
		b, _ := f.Axis.Value(levels[j])
		return a < b
	})
	if c.From != "" {
		levels = levels[slices.Index(levels, c.From):]
	}
	if len(levels) < 2 {
		return bad("%s has %d value from %s on: a trend needs two or more", f.Name, len(levels), levels[0])
	}
	c.Levels = levels
	return true
}

// extraMetrics are the metrics a study's report reads from the runs' result files
// beyond the headline ones (extras.go), for every workload; tierMetrics those it
// reads per tier, as a prefix of the tier's name.
var (
	extraMetrics = []string{"latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "engine_mb_s", "client_cpu_cores",
		"energy_j", "co2_g", "device_energy_j", "device_co2_g", "host_cpu_busy_pct", "host_cpu_iowait_pct"}
	tierMetrics = []string{"util_", "mb_s_"}
)

// checkMetric checks that metric is one the cell's runs report: a headline metric of
// its workload, one its result files give (extraMetrics), a tier's (util_data,
// mb_s_data), or an energy component's (energy_cpu_j).
func checkMetric(metric string, cell *Cell) error {
	m, err := workload.Get(cell.Workload)
	if err != nil {
		return err
	}
	var headline []string
	for _, h := range m.Result.Headline {
		headline = append(headline, h.Name)
	}
	if slices.Contains(headline, metric) || slices.Contains(extraMetrics, metric) {
		return nil
	}
	tiers := cellTiers(cell)
	for _, p := range tierMetrics {
		for _, t := range tiers {
			if metric == p+key(t) {
				return nil
			}
		}
	}
	if strings.HasPrefix(metric, "energy_") && strings.HasSuffix(metric, "_j") {
		return nil
	}
	var per []string
	for _, p := range tierMetrics {
		for _, t := range tiers {
			per = append(per, p+key(t))
		}
	}
	return fmt.Errorf("unknown metric %q: %s reports %s (its headline metrics), %s and energy_COMPONENT_j (from its result files)",
		metric, cell.Workload, strings.Join(headline, ", "), strings.Join(append(slices.Clone(extraMetrics), per...), ", "))
}

// cellTiers are the names of the tiers a cell places files on: those of --tier, and
// a class given a device or directory of its own (its tier is named after it).
func cellTiers(cell *Cell) []string {
	var out []string
	for _, t := range cell.Values["tier"] {
		if name, _, ok := strings.Cut(t, "="); ok {
			out = append(out, strings.TrimSpace(name))
		}
	}
	for _, class := range []string{"data", "wal", "temp"} {
		if v := cell.Values[class]; len(v) == 1 && !slices.Contains(out, v[0]) {
			out = append(out, class)
		}
	}
	return out
}
