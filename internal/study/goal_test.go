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
	if text := g.Text(r); !strings.Contains(text, "io2 wins with 0.5, 37.5% lower than the runner-up pd-ssd (0.8)") {
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
	} {
		_, err := Parse("test.yaml", []byte(base+tc.goal))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.goal, err, tc.want)
		}
	}
}
