package study

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"tierbench/internal/report"
	"tierbench/internal/workload"
	"tierbench/internal/yamltext"
)

// Goal ranks a study's cells (docs/studies.md, "Goals"): the cells whose mean values
// meet every condition of Where, best first by Metric (lowest with Minimize), e.g.
// the cheapest configuration whose p99 is under 20 ms and whose TPS is at least 1,000.
// With Per, the cells are ranked apart for each combination of those factors'
// levels: the cheapest configuration for each database size.
type Goal struct {
	Metric   string      `json:"metric"`
	Minimize bool        `json:"minimize"`
	Where    []Condition `json:"where,omitempty"`
	Per      []string    `json:"per,omitempty"`
	Pos      Pos         `json:"-"`
	// PerPos is where each of Per is, for the check that it names a factor.
	PerPos []Pos `json:"-"`
}

// Condition is one bound a cell's mean must meet: "latency_p99_ms < 20".
type Condition struct {
	Metric string  `json:"metric"`
	Op     string  `json:"op"` // <, <=, >, >=
	Value  float64 `json:"value"`
	Pos    Pos     `json:"-"`
}

// holds says whether v meets c.
func (c Condition) holds(v float64) bool {
	switch c.Op {
	case "<":
		return v < c.Value
	case "<=":
		return v <= c.Value
	case ">":
		return v > c.Value
	}
	return v >= c.Value
}

func (c Condition) String() string { return fmt.Sprintf("%s %s %g", c.Metric, c.Op, c.Value) }

// fixedMetrics are the report's metrics beyond the workloads' headline ones, and
// metricPrefixes those it names per tier or energy component (extras).
var (
	fixedMetrics = []string{"latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "engine_mb_s", "client_cpu_cores",
		"energy_j", "co2_g", "device_energy_j", "device_co2_g", "host_cpu_busy_pct", "host_cpu_iowait_pct",
		"cost_usd", "usd_per_million_transactions", "usd_per_kqphh", "embodied_g", "sci_g_per_transaction",
		"watts_per_ktpmc", "watts_per_kqphh"}
	metricPrefixes = []string{"util_", "mb_s_", "energy_"}
)

// knownMetric says whether a study's report can have the metric key: a headline
// metric of a registered workload, or one of the report's own.
func knownMetric(key string) bool {
	if slices.Contains(fixedMetrics, key) {
		return true
	}
	for _, p := range metricPrefixes {
		if strings.HasPrefix(key, p) && len(key) > len(p) {
			return true
		}
	}
	for _, n := range workload.Names() {
		if m, err := workload.Get(n); err == nil {
			for _, h := range m.Result.Headline {
				if h.Name == key {
					return true
				}
			}
		}
	}
	return false
}

// goal reads goal: {minimize: METRIC | maximize: METRIC, where: ["METRIC OP NUMBER", ...],
// per: [FACTOR, ...]}; that each of per is a factor is checked with the factors
// (expansion.check).
func (p *problems) goal(e entry) *Goal {
	g := &Goal{Pos: at(e.key, e.field)}
	metric := func(key string, n *yaml.Node, field string) bool {
		if !knownMetric(key) {
			p.add(at(n, field), "unknown metric %q: use a workload's headline metric (tps, nopm, qphh_at_size, ...) or one of %s", key, strings.Join(fixedMetrics, ", "))
			return false
		}
		return true
	}
	for _, ge := range p.mapping(e.value, e.field, "minimize", "maximize", "where", "per") {
		switch ge.key.Value {
		case "minimize", "maximize":
			if g.Metric != "" {
				p.add(at(ge.key, ge.field), "give minimize or maximize, not both")
				continue
			}
			if s, ok := p.scalar(ge); ok && metric(s, ge.value, ge.field) {
				g.Metric, g.Minimize = s, ge.key.Value == "minimize"
			}
		case "where":
			p.eachItem(ge, func(s, f string) {
				c, err := parseCondition(s)
				if err != nil {
					p.add(at(ge.value, f), "%q: %v", s, err)
					return
				}
				if metric(c.Metric, ge.value, f) {
					c.Pos = at(ge.value, f)
					g.Where = append(g.Where, c)
				}
			})
		case "per":
			p.eachItem(ge, func(s, f string) {
				if slices.Contains(g.Per, s) {
					p.add(at(ge.value, f), "%q is given twice", s)
					return
				}
				g.Per = append(g.Per, s)
				g.PerPos = append(g.PerPos, at(ge.value, f))
			})
		}
	}
	if g.Metric == "" {
		p.add(g.Pos, "give the metric to rank by: minimize: METRIC or maximize: METRIC")
	}
	return g
}

// eachItem calls do with each value of a list field (or its one value) and the field
// path that names it ("goal.where[1]").
func (p *problems) eachItem(e entry, do func(value, field string)) {
	list, ok := p.scalars(e.value, e.field)
	if !ok {
		return
	}
	for i, s := range list {
		do(s, yamltext.Item(e.field, i))
	}
}

// parseCondition reads "METRIC OP NUMBER".
func parseCondition(s string) (Condition, error) {
	f := strings.Fields(s)
	if len(f) != 3 || !slices.Contains([]string{"<", "<=", ">", ">="}, f[1]) {
		return Condition{}, fmt.Errorf("write a condition as METRIC OP NUMBER, OP one of < <= > >= (e.g. \"latency_p99_ms < 20\")")
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(f[2], ",", ""), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Condition{}, fmt.Errorf("%q is not a number", f[2])
	}
	return Condition{Metric: f[0], Op: f[1], Value: v}, nil
}

// Ranked is one cell that meets the goal's conditions, with its mean.
type Ranked struct {
	ID   string
	Mean float64
}

// Ranking is the goal's answer: the cells that meet its conditions, best first, and
// why each other cell does not.
type Ranking struct {
	Ranked   []Ranked
	Excluded []string
}

// GoalGroup is the ranking of one combination of the Per factors' levels: Levels says
// which ("benchmark=mix-small"; "" without Per).
type GoalGroup struct {
	Levels string
	Ranking
}

// RankPer ranks the summary's cells by g within each combination of the Per factors'
// levels, in the order the combinations first appear; one group of every cell
// without Per.
func (g *Goal) RankPer(sum *report.Summary) []GoalGroup {
	var groups []GoalGroup
	index := map[string]int{}
	cells := map[string][]report.CellSummary{}
	for _, c := range sum.Cells {
		var levels []string
		for _, name := range g.Per {
			for _, f := range c.Factors {
				if f.Name == name {
					levels = append(levels, f.Name+"="+f.Value)
				}
			}
		}
		key := strings.Join(levels, ",")
		if _, ok := index[key]; !ok {
			index[key] = len(groups)
			groups = append(groups, GoalGroup{Levels: key})
		}
		cells[key] = append(cells[key], c)
	}
	for i := range groups {
		groups[i].Ranking = g.Rank(&report.Summary{Cells: cells[groups[i].Levels]})
	}
	return groups
}

// Rank ranks the summary's cells by g, by each metric's mean over a cell's runs,
// all together (RankPer ranks them apart by the Per factors).
func (g *Goal) Rank(sum *report.Summary) Ranking {
	var r Ranking
	for _, c := range sum.Cells {
		mean := func(key string) (float64, bool) {
			m, ok := c.Metrics[key]
			if !ok || len(m.Values) == 0 {
				return 0, false
			}
			return m.Stats.Mean, true
		}
		why := ""
		for _, cond := range g.Where {
			v, ok := mean(cond.Metric)
			switch {
			case !ok:
				why = fmt.Sprintf("no %s", cond.Metric)
			case !cond.holds(v):
				why = fmt.Sprintf("%s is %.4g, not %s %g", cond.Metric, v, cond.Op, cond.Value)
			}
			if why != "" {
				break
			}
		}
		v, ok := mean(g.Metric)
		if why == "" && !ok {
			why = fmt.Sprintf("no %s", g.Metric)
		}
		if why != "" {
			r.Excluded = append(r.Excluded, c.ID+": "+why)
			continue
		}
		r.Ranked = append(r.Ranked, Ranked{ID: c.ID, Mean: v})
	}
	slices.SortStableFunc(r.Ranked, func(a, b Ranked) int {
		if g.Minimize {
			return cmpFloat(a.Mean, b.Mean)
		}
		return cmpFloat(b.Mean, a.Mean)
	})
	return r
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Text says which cell wins and by how much: its mean against the runner-up's; with
// Per, among the cells of the group's levels.
func (g *Goal) Text(r GoalGroup) string {
	dir := "highest"
	if g.Minimize {
		dir = "lowest"
	}
	var conds []string
	for _, c := range g.Where {
		conds = append(conds, c.String())
	}
	goal := fmt.Sprintf("the %s %s", dir, g.Metric)
	if len(conds) > 0 {
		goal += " where " + strings.Join(conds, " and ")
	}
	if r.Levels != "" {
		goal += ", among the cells with " + r.Levels
	}
	switch len(r.Ranked) {
	case 0:
		return fmt.Sprintf("Goal: %s. No cell meets it.", goal)
	case 1:
		return fmt.Sprintf("Goal: %s. %s wins with %.4g, the only cell that meets the conditions.", goal, r.Ranked[0].ID, r.Ranked[0].Mean)
	}
	w, n := r.Ranked[0], r.Ranked[1]
	by := "the same as"
	if n.Mean != 0 {
		by = fmt.Sprintf("%.1f%% %s than", math.Abs(w.Mean-n.Mean)/math.Abs(n.Mean)*100, map[bool]string{true: "lower", false: "higher"}[g.Minimize])
	}
	return fmt.Sprintf("Goal: %s. %s wins with %.4g, %s the runner-up %s (%.4g).", goal, w.ID, w.Mean, by, n.ID, n.Mean)
}
