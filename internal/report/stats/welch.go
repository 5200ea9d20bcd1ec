package stats

import (
	"encoding/json"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Welch is the result of Welch's t-test of the difference of two means.
type Welch struct {
	// T is (mean(x) - mean(base)) / sqrt(var(x)/n_x + var(base)/n_base).
	T float64
	// DF is the Welch-Satterthwaite degrees of freedom.
	DF float64
	// P is the two-sided p-value; NaN when the test cannot be made.
	P float64
}

// WelchTest tests whether x's mean differs from base's without assuming equal
// variances. It needs two repetitions on each side: otherwise every field is NaN.
// When both sides have no spread at all, equal means give P = NaN (nothing to test:
// scipy gives NaN too) and different means give P = 0, T = +/-Inf: repetitions that
// agree exactly leave no doubt about the difference.
func WelchTest(base, x []float64) Welch {
	nan := math.NaN()
	if len(base) < 2 || len(x) < 2 {
		return Welch{T: nan, DF: nan, P: nan}
	}
	mb, mx := mean(base), mean(x)
	vb := variance(base, mb) / float64(len(base))
	vx := variance(x, mx) / float64(len(x))
	se2 := vb + vx
	if se2 == 0 {
		if mx == mb {
			return Welch{T: nan, DF: nan, P: nan}
		}
		return Welch{T: math.Copysign(math.Inf(1), mx-mb), DF: nan, P: 0}
	}
	t := (mx - mb) / math.Sqrt(se2)
	df := se2 * se2 / (vb*vb/float64(len(base)-1) + vx*vx/float64(len(x)-1))
	p := 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
	return Welch{T: t, DF: df, P: math.Min(p, 1)}
}

// Comparison is a cell against the baseline cell for one metric.
type Comparison struct {
	// DiffPct is 100 x (mean(x) - mean(base)) / |mean(base)|, so a rise is positive
	// whatever the sign of the baseline; NaN when either side has no value or the
	// baseline's mean is 0.
	DiffPct float64
	Welch
	// Significant is P < Alpha.
	Significant bool
}

// Compare compares x with base: the % difference of the means and Welch's test.
func Compare(base, x []float64) Comparison {
	c := Comparison{DiffPct: math.NaN(), Welch: WelchTest(base, x)}
	if len(base) > 0 && len(x) > 0 {
		if mb := mean(base); mb != 0 {
			c.DiffPct = 100 * (mean(x) - mb) / math.Abs(mb)
		}
	}
	c.Significant = c.P < Alpha // false for NaN
	return c
}

// comparisonJSON is Comparison in JSON, with null for NaN and infinities.
type comparisonJSON struct {
	DiffPct     *float64 `json:"diff_pct"`
	T           *float64 `json:"t"`
	DF          *float64 `json:"df"`
	P           *float64 `json:"p"`
	Significant bool     `json:"significant"`
}

// MarshalJSON writes NaN fields as null, and an infinite T (no spread on either
// side) as null too.
func (c Comparison) MarshalJSON() ([]byte, error) {
	return json.Marshal(comparisonJSON{Nullable(c.DiffPct), Nullable(c.T), Nullable(c.DF), Nullable(c.P), c.Significant})
}

// UnmarshalJSON reads what MarshalJSON wrote, null as NaN.
func (c *Comparison) UnmarshalJSON(b []byte) error {
	var j comparisonJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = Comparison{DiffPct: orNaN(j.DiffPct), Welch: Welch{T: orNaN(j.T), DF: orNaN(j.DF), P: orNaN(j.P)}, Significant: j.Significant}
	return nil
}
