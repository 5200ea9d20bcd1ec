package stats

import (
	"encoding/json"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestBlockedCompare against a hand computation: host a ran the baseline at 100 and
// 102 and the cell at 90 and 92; host b, about 20% faster, 120, 122 and 110, 111.
// Each host's difference: a 91 - 101 = -10, b 110.5 - 121 = -10.5; the weights
// 2x2/4 = 1 each, so Diff = -10.25, and the baseline's mean 111. The fitted levels:
// a (202 + 182 + 20.5)/4 = 101.125, b (242 + 221 + 20.5)/4 = 120.875; the residuals
// a: -1.125, 0.875 (base), -0.875, 1.125 (cell); b: -0.875, 1.125, -0.625, 0.375:
// RSS = 6.625 on 8 - 3 = 5 degrees of freedom, SE = sqrt(6.625/5/2) = 0.813941.
// Welch's test over the two hosts' runs pooled takes the hosts' gap for noise.
func TestBlockedCompare(t *testing.T) {
	base := []float64{100, 102, 120, 122}
	x := []float64{90, 92, 110, 111}
	hosts := []string{"a", "a", "b", "b"}
	got := BlockedCompare(base, x, hosts, hosts)
	se := math.Sqrt(6.625 / 5 / 2)
	tv := -10.25 / se
	p := 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 5}.Survival(math.Abs(tv))
	near(t, "diff", got.Diff, -10.25, 1e-12)
	near(t, "diff %", got.DiffPct, 100*-10.25/111, 1e-12)
	near(t, "SE", got.SE, se, 1e-12)
	near(t, "T", got.T, tv, 1e-12)
	near(t, "DF", got.DF, 5, 0)
	near(t, "P", got.P, p, 1e-12)
	if got.Shared != 2 || !got.Significant {
		t.Errorf("shared %d significant %v, want 2 hosts and significant", got.Shared, got.Significant)
	}
	if w := WelchTest(base, x); w.P < 0.05 {
		t.Errorf("Welch's p = %v over the pooled runs: the example should need the blocking", w.P)
	}

	// Unbalanced: host a holds 1 baseline run and 3 of the cell, weight 1x3/4 = 0.75
	// and difference 11 - 10 = 1; host b 2 and 2, weight 1, difference 21 - 20 = 1.
	// Host c ran the cell only: it adds a parameter and nothing to Diff.
	u := BlockedCompare([]float64{10, 19, 21}, []float64{10, 11, 12, 20, 22, 50}, []string{"a", "b", "b"}, []string{"a", "a", "a", "b", "b", "c"})
	near(t, "unbalanced diff", u.Diff, 1, 1e-12)
	if u.Shared != 2 || u.DF != 9-3-1 {
		t.Errorf("unbalanced: shared %d, DF %v; want 2 and 5", u.Shared, u.DF)
	}

	// A cell and its baseline never on one host: no comparison within a host.
	across := BlockedCompare([]float64{100, 101}, []float64{90, 91}, []string{"a", "a"}, []string{"b", "b"})
	if across.Shared != 0 || !math.IsNaN(across.Diff) || !math.IsNaN(across.P) || across.Significant {
		t.Errorf("across hosts only: %+v", across)
	}
	// One run a side on one host: a difference, and no degrees of freedom to test it.
	one := BlockedCompare([]float64{100}, []float64{90}, []string{"a"}, []string{"a"})
	if one.Diff != -10 || !math.IsNaN(one.P) || !math.IsNaN(one.DF) {
		t.Errorf("one run a side: %+v", one)
	}
}

// TestBlockEffects: two hosts, two cells; host b's runs are exactly 10% above host
// a's, cell for cell. On the log scale b - a = ln 1.1, so against the average host
// a is exp(-ln(1.1)/2) - 1 = -4.653% and b exp(ln(1.1)/2) - 1 = +4.881%, whatever the
// cells' own levels.
func TestBlockEffects(t *testing.T) {
	obs := []Observation{{"c1", "a", 100}, {"c2", "a", 2000}, {"c1", "b", 110}, {"c2", "b", 2200}, {"c1", "a", 100}}
	eff, ok := BlockEffects(obs)
	if !ok {
		t.Fatal("the hosts share cells, yet are not linked")
	}
	near(t, "a", eff["a"], 100*(math.Exp(-math.Log(1.1)/2)-1), 1e-9)
	near(t, "b", eff["b"], 100*(math.Exp(math.Log(1.1)/2)-1), 1e-9)
	// A value of 0 (a metric that can be 0) fits on the values themselves: host b
	// 3 above a on a grand mean of 10.5 is +1.5 and -1.5 around the average, 14.29%.
	add, ok := BlockEffects([]Observation{{"c1", "a", 0}, {"c2", "a", 18}, {"c1", "b", 3}, {"c2", "b", 21}})
	if !ok {
		t.Fatal("additive: not linked")
	}
	near(t, "additive b", add["b"], 100*1.5/10.5, 1e-9)
	// Hosts that share no cell: their effect is their cells'.
	if _, ok := BlockEffects([]Observation{{"c1", "a", 1}, {"c2", "b", 2}}); ok {
		t.Error("hosts without a cell in common were fitted")
	}
}

// TestBlockedJSON: a comparison that cannot be made is written with nulls and read
// back as NaN.
func TestBlockedJSON(t *testing.T) {
	in := BlockedCompare([]float64{1, 2}, []float64{3, 4}, []string{"a", "a"}, []string{"b", "b"})
	b, err := json.Marshal(in)
	if err != nil || string(b) != `{"diff":null,"diff_pct":null,"se":null,"t":null,"df":null,"p":null,"significant":false,"shared_blocks":0}` {
		t.Fatalf("%s %v", b, err)
	}
	var out Blocked
	if err := json.Unmarshal(b, &out); err != nil || !math.IsNaN(out.Diff) || out.Shared != 0 {
		t.Errorf("read back %+v %v", out, err)
	}
}
