package report

import (
	"strings"
	"testing"
)

// TestSummariseAgainst: each cell is compared with its group's baseline; the table
// marks each group's baseline as such and shows the others' % against it, computed
// by hand: sqlite (120+130)/2 = 125 against 100 is +25.00%, postgres 90 against 60
// is +50.00%.
func TestSummariseAgainst(t *testing.T) {
	cell := func(p, e string, a, b float64) Cell {
		return Cell{Factors: []Factor{{"placement", p}, {"engine", e}},
			Runs: []Run{{Repetition: 1, Metrics: map[string]float64{"tpm": a}}, {Repetition: 2, Metrics: map[string]float64{"tpm": b}}}}
	}
	cells := []Cell{cell("I", "sqlite", 95, 105), cell("III", "sqlite", 120, 130), cell("I", "postgres", 55, 65), cell("III", "postgres", 85, 95)}
	id := func(i int) string { return cells[i].CellID() }
	against := map[string]string{id(0): id(0), id(1): id(0), id(2): id(2), id(3): id(2)}
	s, err := SummariseAgainst(cells, []Metric{{Key: "tpm", Label: "TPM"}}, against, "placement=I with the same engine")
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := s.Table("tpm")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"baseline", "+25.00%", "baseline", "+50.00%"}
	for i, row := range tbl.Rows {
		if got := row[len(row)-3].Text; got != want[i] {
			t.Errorf("row %d (%s): %q, want %q", i, id(i), got, want[i])
		}
	}
	if !strings.Contains(tbl.Note, "against placement=I with the same engine") {
		t.Errorf("note %q does not say what the baselines are", tbl.Note)
	}
	if _, err := SummariseAgainst(cells, nil, map[string]string{id(0): "nope"}, ""); err == nil {
		t.Error("a baseline that is not a cell was accepted")
	}
}

// TestChartLeavesOutEmptySeries: a configuration whose cells lack the metric (TPC-H
// cells in a chart of TPS) draws no series.
func TestChartLeavesOutEmptySeries(t *testing.T) {
	cell := func(b, users string, m map[string]float64) Cell {
		return Cell{Factors: []Factor{{"benchmark", b}, {"users", users}}, Runs: []Run{{Repetition: 1, Metrics: m}}}
	}
	cells := []Cell{cell("bbs", "1", map[string]float64{"tps": 10}), cell("bbs", "2", map[string]float64{"tps": 18}),
		cell("tpch", "1", map[string]float64{"qphh": 5}), cell("tpch", "2", map[string]float64{"qphh": 7})}
	s, err := Summarise(cells, []Metric{{Key: "tps", Label: "TPS"}, {Key: "qphh", Label: "QphH"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Chart(ChartSpec{Metric: "tps", X: "users"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Series) != 1 || c.Series[0].Name != "benchmark=bbs" || len(c.Series[0].Points) != 2 || c.Series[0].Points[1].Y != 18 {
		t.Errorf("series %+v, want benchmark=bbs alone with its two points", c.Series)
	}
}
