package stats

import (
	"encoding/json"
	"math"
)

// Interval is an estimate with its 95% confidence interval: a difference of two
// means, a ratio of means, or a product of powers of means (a ratio of ratios).
type Interval struct {
	Value, Low, High float64
	// DF is the Welch-Satterthwaite degrees of freedom of the t quantile; NaN when the
	// repetitions have no spread at all (the interval is then the value itself).
	DF float64
}

// nanInterval is an estimate that cannot be made.
func nanInterval() Interval {
	nan := math.NaN()
	return Interval{Value: nan, Low: nan, High: nan, DF: nan}
}

// OK says the interval exists: both ends are numbers.
func (iv Interval) OK() bool { return !math.IsNaN(iv.Low) && !math.IsNaN(iv.High) }

// DiffOfMeans is mean(x) - mean(base) with Welch's 95% interval: the difference
// -/+ t(0.975, df) x sqrt(var(x)/n_x + var(base)/n_base), df by Welch-Satterthwaite.
// It agrees with WelchTest: the interval leaves out 0 exactly when p < 0.05. It needs
// two repetitions on each side (else every field is NaN but Value, when both sides
// have one).
func DiffOfMeans(base, x []float64) Interval {
	iv := nanInterval()
	if len(base) == 0 || len(x) == 0 {
		return iv
	}
	mb, mx := mean(base), mean(x)
	iv.Value = mx - mb
	if len(base) < 2 || len(x) < 2 {
		return iv
	}
	vb := variance(base, mb) / float64(len(base))
	vx := variance(x, mx) / float64(len(x))
	return withT(iv, iv.Value, []float64{vb, vx}, []int{len(base), len(x)}, false)
}

// MeanOf is mean(xs) with Student's 95% interval: the mean -/+ t(0.975, n-1) x
// sqrt(var/n), the one-term case of the intervals here. It needs two repetitions
// (else every field is NaN but Value).
func MeanOf(xs []float64) Interval {
	iv := nanInterval()
	if len(xs) == 0 {
		return iv
	}
	iv.Value = mean(xs)
	if len(xs) < 2 {
		return iv
	}
	return withT(iv, iv.Value, []float64{variance(xs, iv.Value) / float64(len(xs))}, []int{len(xs)}, false)
}

// Power is one factor of a product of means: the mean of Values raised to Power
// (+1 a numerator, -1 a denominator).
type Power struct {
	Values []float64
	Power  float64
}

// RatioOfMeans is mean(x) / mean(base) with a 95% interval by the delta method on the
// log scale (ProductOfMeans).
func RatioOfMeans(base, x []float64) Interval {
	return ProductOfMeans(Power{x, 1}, Power{base, -1})
}

// ProductOfMeans is the product of each mean raised to its power (a ratio of means,
// or a ratio of two ratios: a/b over c/d) with a 95% interval by the delta method on
// the log scale: log of the product = sum of p_i log m_i, whose variance is about
// sum of p_i^2 s_i^2 / (n_i m_i^2) (the variance of log m_i is that of m_i over
// m_i^2), with the t quantile at the Welch-Satterthwaite degrees of freedom
// (sum w_i)^2 / sum (w_i^2 / (n_i - 1)), w_i each term's variance; the interval is
// the exponential of log -/+ t x se.
//
// Why this, for benchmark repetitions: the metrics are positive (throughputs, times,
// joules); the log-scale interval stays positive, and the interval of b/a is that of
// a/b inverted, so a claim reads the same either way round; with two to five
// repetitions a bootstrap has too few distinct resamples to mean anything; and
// Fieller's interval, exact for normal means, matches this one closely when each mean
// is many standard errors from 0 (as throughputs are) while it becomes unbounded when
// a denominator's mean is not clearly above 0, which here means the estimate cannot
// be made anyway.
//
// Every mean must be positive and every term have two repetitions, else the fields
// are NaN (Value alone is given when each term has a positive mean).
func ProductOfMeans(terms ...Power) Interval {
	iv := nanInterval()
	if len(terms) == 0 {
		return iv
	}
	logv := 0.0
	two := true
	for _, t := range terms {
		if len(t.Values) == 0 {
			return iv
		}
		m := mean(t.Values)
		if !(m > 0) {
			return iv
		}
		logv += t.Power * math.Log(m)
		two = two && len(t.Values) >= 2
	}
	iv.Value = math.Exp(logv)
	if !two {
		return iv
	}
	ws := make([]float64, len(terms))
	ns := make([]int, len(terms))
	for i, t := range terms {
		m := mean(t.Values)
		n := float64(len(t.Values))
		ws[i] = t.Power * t.Power * variance(t.Values, m) / (n * m * m)
		ns[i] = len(t.Values)
	}
	return withT(iv, logv, ws, ns, true)
}

// withT sets iv's interval around center from the terms' variances ws (of
// repetition counts ns): center -/+ t(0.975, df) x sqrt(sum ws), exponentiated when
// log is set.
func withT(iv Interval, center float64, ws []float64, ns []int, log bool) Interval {
	var se2, den float64
	for i, w := range ws {
		se2 += w
		den += w * w / float64(ns[i]-1)
	}
	lo, hi := center, center
	if se2 > 0 {
		iv.DF = se2 * se2 / den
		half := TQuantile(1-Alpha/2, iv.DF) * math.Sqrt(se2)
		lo, hi = center-half, center+half
	}
	if log {
		lo, hi = math.Exp(lo), math.Exp(hi)
	}
	iv.Low, iv.High = lo, hi
	return iv
}

// intervalJSON is Interval in JSON, with null for NaN.
type intervalJSON struct {
	Value *float64 `json:"value"`
	Low   *float64 `json:"ci95_low"`
	High  *float64 `json:"ci95_high"`
	DF    *float64 `json:"df"`
}

// MarshalJSON writes NaN fields as null.
func (iv Interval) MarshalJSON() ([]byte, error) {
	return json.Marshal(intervalJSON{Nullable(iv.Value), Nullable(iv.Low), Nullable(iv.High), Nullable(iv.DF)})
}

// UnmarshalJSON reads what MarshalJSON wrote, null as NaN.
func (iv *Interval) UnmarshalJSON(b []byte) error {
	var j intervalJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*iv = Interval{Value: orNaN(j.Value), Low: orNaN(j.Low), High: orNaN(j.High), DF: orNaN(j.DF)}
	return nil
}
