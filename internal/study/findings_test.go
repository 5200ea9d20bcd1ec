package study

import (
	"slices"
	"testing"

	"tierbench/internal/report"
)

// TestFindings: the comparisons in words, each metric by its title, with the % difference of the means
// computed by hand: (125 - 105) / 105 = 19.05% faster; a latency that falls is lower.
// The p-values were computed apart (Welch-Satterthwaite df, the t tail integrated
// numerically): 0.1056 and 0.0693.
func TestFindings(t *testing.T) {
	cell := func(placement, engine string, tpm, ms [2]float64) report.Cell {
		c := report.Cell{ID: "placement=" + placement + ",engine=" + engine,
			Factors: []report.Factor{{Name: "placement", Value: placement}, {Name: "engine", Value: engine}}}
		for i := range 2 {
			c.Runs = append(c.Runs, report.Run{Repetition: i + 1, Metrics: map[string]float64{"tpm": tpm[i], "p95": ms[i]}})
		}
		return c
	}
	cells := []report.Cell{
		cell("I", "sqlite", [2]float64{100, 110}, [2]float64{10, 12}),
		cell("III", "sqlite", [2]float64{120, 130}, [2]float64{5, 6}),
		cell("I", "postgres", [2]float64{100, 100}, [2]float64{1, 1}),
		{ID: "placement=III,engine=postgres", Factors: []report.Factor{{Name: "placement", Value: "III"}, {Name: "engine", Value: "postgres"}},
			Runs: []report.Run{{Repetition: 1, Error: "load: exit status 1"}, {Repetition: 2, Error: "load: exit status 1"}}},
	}
	ms := []report.Metric{{Key: "tpm", Label: "TPM"}, {Key: "p95", Label: "p95", LowerIsBetter: true}}
	against := map[string]string{cells[0].ID: cells[0].ID, cells[1].ID: cells[0].ID, cells[2].ID: cells[2].ID, cells[3].ID: cells[2].ID}
	sum, err := report.SummariseAgainst(cells, ms, against, "placement=I with the same engine")
	if err != nil {
		t.Fatal(err)
	}
	r := &Report{Summary: sum, Metrics: ms, headline: map[string]bool{"tpm": true, "p95": true},
		varying: map[string]map[string]bool{"placement": {"I": true, "III": true}, "engine": {"sqlite": true, "postgres": true}}}
	got := r.Findings()
	want := []string{
		"TPM: placement=III is 19.05% faster than placement=I at engine=sqlite (p = 0.106, not significant)",
		"TPM: placement=III at engine=postgres is not compared with placement=I: it has no successful run",
		"p95: placement=III is 50.00% lower than placement=I at engine=sqlite (p = 0.0693, not significant)",
		"p95: placement=III at engine=postgres is not compared with placement=I: it has no successful run",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings\n%q\nwant\n%q", got, want)
	}
}
