package study

import (
	"strings"
	"testing"

	"tierbench/internal/report"
	"tierbench/internal/report/stats"
)

// cellWith is a summary cell whose metrics have the given means (one run each).
func cellWith(id string, means map[string]float64) report.CellSummary {
	c := report.CellSummary{ID: id, Runs: 1, Metrics: map[string]report.MetricSummary{}}
	for k, v := range means {
		c.Metrics[k] = report.MetricSummary{Values: []float64{v}, Stats: stats.Summary{N: 1, Mean: v}}
	}
	return c
}

// The cheapest cell whose p99 is under 20 ms and whose TPS is at least 1,000, by hand:
// gp3 fails the p99 bound, st1 the TPS bound; io2 ($0.50) beats pd-ssd ($0.80) by
// (0.80 - 0.50) / 0.80 = 37.5%.
func TestGoalRanks(t *testing.T) {
	src := `name: g
workload: oltp
factors:
  volume: [a, b]
goal:
  minimize: usd_per_million_transactions
  where: ["latency_p99_ms < 20", "tps >= 1,000"]
`
	f, err := Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	g := f.Goal
	if g == nil || g.Metric != "usd_per_million_transactions" || !g.Minimize || len(g.Where) != 2 || g.Where[1].Value != 1000 {
		t.Fatalf("goal %+v", g)
	}
	sum := &report.Summary{Cells: []report.CellSummary{
		cellWith("gp3", map[string]float64{"usd_per_million_transactions": 0.2, "latency_p99_ms": 25, "tps": 3000}),
		cellWith("pd-ssd", map[string]float64{"usd_per_million_transactions": 0.8, "latency_p99_ms": 5, "tps": 1000}),
		cellWith("io2", map[string]float64{"usd_per_million_transactions": 0.5, "latency_p99_ms": 2, "tps": 5000}),
		cellWith("st1", map[string]float64{"usd_per_million_transactions": 0.1, "latency_p99_ms": 19, "tps": 90}),
	}}
	r := g.Rank(sum)
	if len(r.Ranked) != 2 || r.Ranked[0].ID != "io2" || r.Ranked[1].ID != "pd-ssd" {
		t.Fatalf("ranked %+v, want io2 then pd-ssd", r.Ranked)
	}
	if len(r.Excluded) != 2 || !strings.Contains(r.Excluded[0], "gp3: latency_p99_ms is 25, not < 20") || !strings.Contains(r.Excluded[1], "st1: tps is 90, not >= 1000") {
		t.Errorf("excluded %v", r.Excluded)
	}
	if text := g.Text(GoalGroup{Ranking: r}); !strings.Contains(text, "io2 wins with 0.5, 37.5% lower than the runner-up pd-ssd (0.8)") {
		t.Errorf("text %q", text)
	}
}

// A goal over an unknown metric, or a condition that is not METRIC OP NUMBER, is one
// line naming file:line.
func TestGoalRefusesBadInput(t *testing.T) {
	base := "name: g\nworkload: oltp\nfactors:\n  volume: [a, b]\ngoal:\n"
	for _, tc := range []struct{ goal, want string }{
		{"  minimize: dollars\n", `test.yaml:6: goal.minimize: unknown metric "dollars"`},
		{"  minimize: tps\n  where: [\"p99 < 20\"]\n", `test.yaml:7: goal.where[0]: unknown metric "p99"`},
		{"  maximize: tps\n  where: [\"latency_p99_ms about 20\"]\n", `test.yaml:7: goal.where[0]: "latency_p99_ms about 20": write a condition as METRIC OP NUMBER`},
		{"  where: [\"tps > 1\"]\n", `test.yaml:5: goal: give the metric to rank by`},
		{"  minimize: tps\n  per: [size]\n", `test.yaml:7: goal.per[0]: "size" is not a factor`},
		{"  minimize: tps\n  per: [volume, volume]\n", `test.yaml:7: goal.per[1]: "volume" is given twice`},
	} {
		_, err := expand(t, base+tc.goal, "") // that per names a factor is checked with the factors
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.goal, err, tc.want)
		}
	}
}

// A goal per database size ranks each size's cells apart, by hand: on the small
// database io2 ($0.50) beats gp3 ($0.60) by (0.60 - 0.50) / 0.60 = 16.7%; on the
// large one gp3 misses the p99 bound and io2 is the only cell left. Together, the
// small database's cheap cells would have hidden the large one's answer.
func TestGoalPerSize(t *testing.T) {
	src := `name: g
workload: oltp
factors:
  volume: [gp3, io2]
  size: [small, large]
goal:
  minimize: usd_per_million_transactions
  where: ["latency_p99_ms < 20"]
  per: [size]
`
	f, err := Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	g := f.Goal
	if len(g.Per) != 1 || g.Per[0] != "size" {
		t.Fatalf("goal %+v, want per size", g)
	}
	cell := func(volume, size string, usd, p99 float64) report.CellSummary {
		c := cellWith("volume="+volume+",size="+size, map[string]float64{"usd_per_million_transactions": usd, "latency_p99_ms": p99})
		c.Factors = []report.Factor{{Name: "volume", Value: volume}, {Name: "size", Value: size}}
		return c
	}
	sum := &report.Summary{Cells: []report.CellSummary{
		cell("gp3", "small", 0.6, 2), cell("gp3", "large", 0.9, 30),
		cell("io2", "small", 0.5, 1), cell("io2", "large", 1.5, 4),
	}}
	groups := g.RankPer(sum)
	if len(groups) != 2 || groups[0].Levels != "size=small" || groups[1].Levels != "size=large" {
		t.Fatalf("groups %+v, want size=small then size=large", groups)
	}
	small, large := groups[0], groups[1]
	if len(small.Ranked) != 2 || small.Ranked[0].ID != "volume=io2,size=small" || small.Ranked[1].ID != "volume=gp3,size=small" {
		t.Errorf("small: %+v", small.Ranked)
	}
	if len(large.Ranked) != 1 || large.Ranked[0].ID != "volume=io2,size=large" || len(large.Excluded) != 1 ||
		!strings.Contains(large.Excluded[0], "volume=gp3,size=large: latency_p99_ms is 30, not < 20") {
		t.Errorf("large: %+v", large)
	}
	if text := g.Text(small); !strings.Contains(text, "among the cells with size=small. volume=io2,size=small wins with 0.5, 16.7% lower than the runner-up volume=gp3,size=small (0.6)") {
		t.Errorf("small: %q", text)
	}
	if text := g.Text(large); !strings.Contains(text, "among the cells with size=large. volume=io2,size=large wins with 1.5, the only cell that meets the conditions") {
		t.Errorf("large: %q", text)
	}
	// Without per, one group of every cell: the small database's io2 wins overall.
	g.Per = nil
	if all := g.RankPer(sum); len(all) != 1 || all[0].Levels != "" || len(all[0].Ranked) != 3 || all[0].Ranked[0].ID != "volume=io2,size=small" {
		t.Errorf("without per: %+v", all)
	}
}
