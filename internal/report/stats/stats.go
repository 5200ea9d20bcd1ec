package stats

import (
	"encoding/json"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"tierbench/internal/report/quantity"
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
	// CILow and CIHigh bound the 95% confidence interval of the mean, made by Method
	// within the quantity's range; NaN when N < 2.
	CILow, CIHigh float64
	// Method is how the interval was made; "" when there is none.
	Method Method
}

// Method is how a confidence interval of a mean was made. Each is Student's t with
// N-1 degrees of freedom on the standard error SE = SD / sqrt(N), on a scale that
// keeps the interval within the quantity's range (package quantity).
type Method string

const (
	// StudentT is Mean -/+ t SE, for a quantity that may take any value.
	StudentT Method = "t"
	// LogT is the interval on the log scale of the mean's distance d from the range's
	// one bound (0 for a rate, a time, a size): by the delta method the standard error
	// of log d is SE / d, so the interval is d / exp(t SE / d) to d x exp(t SE / d) from
	// the bound. It never reaches the bound, holds the mean, and is Student's t when
	// the spread is small.
	LogT Method = "log-t"
	// ArcsineT is the interval on the arcsine-square-root scale of the mean's place p
	// in a range bounded on both sides (a share, 0 to 100%): theta = asin(sqrt(p)) -/+
	// t SE_p / (2 sqrt(p (1 - p))), where the scale ends at theta 0 and pi/2 (p 0 and 1),
	// then p = sin^2(theta). It stays within the range and is Student's t when the
	// spread is small.
	ArcsineT Method = "arcsine-t"
	// ClippedT is Student's t cut at the range's bounds, and never short of the mean:
	// for values that lie outside their quantity's range, which no scale of the range
	// can take.
	ClippedT Method = "t-clipped"
)

// Describe says how the interval was made, for a chart's note: "Student's t on the
// log scale".
func (m Method) Describe() string {
	if m == "" {
		return "none"
	}
	if sc := m.Scale(); sc != "" {
		return "Student's t " + sc
	}
	return "Student's t"
}

// Scale is the scale the method puts Student's t on, or how it cuts it, in words
// ("" for StudentT): "on the log scale".
func (m Method) Scale() string {
	switch m {
	case LogT:
		return "on the log scale"
	case ArcsineT:
		return "on the arcsine-square-root scale"
	case ClippedT:
		return "cut at the range's bounds, because some values lie outside it"
	}
	return ""
}

// Summarise describes xs, values of a quantity within r (quantity.Real for any
// value): the interval is made by the method r calls for (see Method). An empty xs
// has N 0 and every other field NaN.
func Summarise(xs []float64, r quantity.Range) Summary {
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
	n := float64(len(xs))
	s.CILow, s.CIHigh, s.Method = interval(s.Mean, s.SD/math.Sqrt(n), TQuantile(1-Alpha/2, n-1), r, s.Min, s.Max)
	return s
}

// interval is the confidence interval of mean, of values from lo to hi of a quantity
// within r, with standard error se and t the quantile of Student's t: see Method for
// each way it is made. A value outside r makes it ClippedT.
func interval(mean, se, t float64, r quantity.Range, lo, hi float64) (low, high float64, m Method) {
	half := t * se
	low, high = mean-half, mean+half
	hasMin, hasMax := !math.IsInf(r.Min, -1), !math.IsInf(r.Max, 1)
	switch {
	case !hasMin && !hasMax:
		return low, high, StudentT
	case lo < r.Min || hi > r.Max:
		return math.Min(math.Max(low, r.Min), mean), math.Max(math.Min(high, r.Max), mean), ClippedT
	case se == 0:
		return mean, mean, MethodFor(r)
	case hasMin && hasMax:
		// Every value is within the range and they differ, so p is strictly inside it.
		w := r.Max - r.Min
		p := (mean - r.Min) / w
		theta := math.Asin(math.Sqrt(p))
		h := t * (se / w) / (2 * math.Sqrt(p*(1-p)))
		sin2 := func(x float64) float64 { v := math.Sin(x); return v * v }
		low = r.Min + w*sin2(math.Max(0, theta-h))
		high = r.Min + w*sin2(math.Min(math.Pi/2, theta+h))
	case hasMin:
		d := mean - r.Min // > 0: the values differ and none is below the bound
		f := math.Exp(t * se / d)
		low, high = r.Min+d/f, r.Min+d*f
	default:
		d := r.Max - mean
		f := math.Exp(t * se / d)
		low, high = r.Max-d*f, r.Max-d/f
	}
	// The scales' rounding must not leave the mean outside its interval.
	return math.Min(low, mean), math.Max(high, mean), MethodFor(r)
}

// MethodFor is the method that makes an interval within r of values within it.
func MethodFor(r quantity.Range) Method {
	hasMin, hasMax := !math.IsInf(r.Min, -1), !math.IsInf(r.Max, 1)
	switch {
	case hasMin && hasMax:
		return ArcsineT
	case hasMin || hasMax:
		return LogT
	}
	return StudentT
}

// HalfWidth is half the confidence interval's width (NaN when there is none); the
// interval is symmetric about the mean only when Method is StudentT.
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
	Method Method   `json:"ci95_method,omitempty"`
}

// MarshalJSON writes NaN fields as null: JSON has no NaN.
func (s Summary) MarshalJSON() ([]byte, error) {
	return json.Marshal(summaryJSON{s.N, Nullable(s.Mean), Nullable(s.SD), Nullable(s.Min), Nullable(s.Max), Nullable(s.CILow), Nullable(s.CIHigh), s.Method})
}

// UnmarshalJSON reads what MarshalJSON wrote, null as NaN, so a summary.json can be
// read back (to compare two studies).
func (s *Summary) UnmarshalJSON(b []byte) error {
	var j summaryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Summary{N: j.N, Mean: orNaN(j.Mean), SD: orNaN(j.SD), Min: orNaN(j.Min), Max: orNaN(j.Max), CILow: orNaN(j.CILow), CIHigh: orNaN(j.CIHigh), Method: j.Method}
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
