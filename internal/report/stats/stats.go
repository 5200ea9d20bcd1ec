package stats

import (
	"encoding/json"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Level is the confidence level of Summary's interval and the test's significance
// (Alpha = 1 - Level).
const (
	Level = 0.95
	Alpha = 1 - Level
)

// Summary describes the repetitions of one measurement.
type Summary struct {
	N    int
	Mean float64
	// SD is the sample standard deviation (n-1 in the denominator); NaN when N < 2.
	SD       float64
	Min, Max float64
	// CILow and CIHigh bound the Student-t 95% confidence interval of the mean:
	// Mean -/+ t(0.975, N-1) x SD / sqrt(N); NaN when N < 2.
	CILow, CIHigh float64
}

// Summarise describes xs. An empty xs has N 0 and every other field NaN.
func Summarise(xs []float64) Summary {
	nan := math.NaN()
	s := Summary{N: len(xs), Mean: nan, SD: nan, Min: nan, Max: nan, CILow: nan, CIHigh: nan}
	if len(xs) == 0 {
		return s
	}
	s.Mean = mean(xs)
	s.Min, s.Max = slices.Min(xs), slices.Max(xs)
	if len(xs) < 2 {
		return s
	}
	s.SD = math.Sqrt(variance(xs, s.Mean))
	half := TQuantile(1-Alpha/2, float64(len(xs)-1)) * s.SD / math.Sqrt(float64(len(xs)))
	s.CILow, s.CIHigh = s.Mean-half, s.Mean+half
	return s
}

// HalfWidth is half the confidence interval's width (NaN when there is none).
func (s Summary) HalfWidth() float64 { return (s.CIHigh - s.CILow) / 2 }

// TQuantile is the p quantile of Student's t distribution with df degrees of freedom
// (df need not be an integer: Welch's df is not).
func TQuantile(p, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}

func mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// variance is the sample variance around m; two passes keep it exact enough for
// values of large magnitude and small spread (a QphH of 10^5 varying by 1).
func variance(xs []float64, m float64) float64 {
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return ss / float64(len(xs)-1)
}

// summaryJSON is Summary in JSON, with null for NaN.
type summaryJSON struct {
	N      int      `json:"n"`
	Mean   *float64 `json:"mean"`
	SD     *float64 `json:"sd"`
	Min    *float64 `json:"min"`
	Max    *float64 `json:"max"`
	CILow  *float64 `json:"ci95_low"`
	CIHigh *float64 `json:"ci95_high"`
}

// MarshalJSON writes NaN fields as null: JSON has no NaN.
func (s Summary) MarshalJSON() ([]byte, error) {
	return json.Marshal(summaryJSON{s.N, Nullable(s.Mean), Nullable(s.SD), Nullable(s.Min), Nullable(s.Max), Nullable(s.CILow), Nullable(s.CIHigh)})
}

// UnmarshalJSON reads what MarshalJSON wrote, null as NaN, so a summary.json can be
// read back (to compare two studies).
func (s *Summary) UnmarshalJSON(b []byte) error {
	var j summaryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Summary{N: j.N, Mean: orNaN(j.Mean), SD: orNaN(j.SD), Min: orNaN(j.Min), Max: orNaN(j.Max), CILow: orNaN(j.CILow), CIHigh: orNaN(j.CIHigh)}
	return nil
}

func orNaN(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// Nullable is v, or nil when v is NaN or infinite, for JSON fields that would
// otherwise fail to encode.
func Nullable(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
