package stats

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"tierbench/internal/report/quantity"
)

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(want) {
		if !math.IsNaN(got) {
			t.Errorf("%s = %v, want NaN", name, got)
		}
		return
	}
	if math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.15g, want %.15g", name, got, want)
	}
}

// TestTQuantile checks the 97.5% quantile of Student's t against closed forms and
// printed tables.
func TestTQuantile(t *testing.T) {
	// df = 1 is the Cauchy distribution: F(t) = 1/2 + atan(t)/pi, so
	// t(0.975) = tan(0.475 pi).
	near(t, "t(0.975, 1)", TQuantile(0.975, 1), math.Tan(0.475*math.Pi), 1e-9)
	// df = 2: F(t) = 1/2 + t / (2 sqrt(2 + t^2)); F = 0.975 gives t/sqrt(2+t^2) = 0.95,
	// t^2 = 0.9025 x 2 / (1 - 0.9025) = 18.5128..., t = 4.30265...
	near(t, "t(0.975, 2)", TQuantile(0.975, 2), math.Sqrt(1.805/0.0975), 1e-9)
	// Printed tables (3 decimals): 2.776 (df 4), 2.228 (df 10), 2.042 (df 30).
	for _, c := range []struct{ df, want float64 }{{4, 2.776}, {10, 2.228}, {30, 2.042}} {
		near(t, "t(0.975)", TQuantile(0.975, c.df), c.want, 5e-4)
	}
}

func TestSummarise(t *testing.T) {
	// 10, 12, 14: mean 12; squared deviations 4 + 0 + 4 = 8, variance 8/2 = 4, SD 2;
	// half-width t(0.975, 2) x 2 / sqrt(3) = 4.30265 x 1.15470 = 4.96828.
	s := Summarise([]float64{14, 10, 12}, quantity.Real)
	half := math.Sqrt(1.805/0.0975) * 2 / math.Sqrt(3)
	if s.N != 3 {
		t.Errorf("N = %d, want 3", s.N)
	}
	near(t, "mean", s.Mean, 12, 1e-12)
	near(t, "sd", s.SD, 2, 1e-12)
	near(t, "min", s.Min, 10, 0)
	near(t, "max", s.Max, 14, 0)
	near(t, "ci low", s.CILow, 12-half, 1e-9)
	near(t, "ci high", s.CIHigh, 12+half, 1e-9)
	near(t, "half width", s.HalfWidth(), half, 1e-9)
	near(t, "half width by hand", half, 4.96828, 1e-5)
	if s.Method != StudentT {
		t.Errorf("method %q, want %q", s.Method, StudentT)
	}

	// Large values with a small spread: a one-pass sum of squares loses the spread.
	big := Summarise([]float64{1e9 + 1, 1e9 + 2, 1e9 + 3}, quantity.Real)
	near(t, "sd of 1e9+{1,2,3}", big.SD, 1, 1e-9)

	one := Summarise([]float64{7}, quantity.NonNegative)
	near(t, "mean of one", one.Mean, 7, 0)
	for name, v := range map[string]float64{"sd": one.SD, "ci low": one.CILow, "ci high": one.CIHigh} {
		near(t, name+" of one", v, math.NaN(), 0)
	}
	none := Summarise(nil, quantity.Percent)
	if one.Method != "" {
		t.Errorf("one value: method %q, want none", one.Method)
	}
	if none.N != 0 || !math.IsNaN(none.Mean) || !math.IsNaN(none.Min) {
		t.Errorf("Summarise(nil) = %+v, want N 0 and NaNs", none)
	}
}

// TestIntervalInRange checks each method against intervals worked out by hand: an
// interval never leaves its quantity's range, always holds the mean, and is
// Student's t for a quantity of any value.
func TestIntervalInRange(t *testing.T) {
	t1 := math.Tan(0.475 * math.Pi) // t(0.975, 1) = 12.7062
	deg := math.Inf(-1)
	for _, tc := range []struct {
		name      string
		xs        []float64
		r         quantity.Range
		low, high float64
		method    Method
	}{
		// TPS 150 and 200: mean 175, SE 25, so Student's t reaches 175 - 12.706 x 25 =
		// -142.7 transactions a second.
		{"student below 0", []float64{150, 200}, quantity.Real, 175 - t1*25, 175 + t1*25, StudentT},
		// The same on the log scale: 175 /x exp(12.706 x 25 / 175) = exp(1.81517) = 6.1422:
		// 28.49 to 1074.9.
		{"log, TPS", []float64{150, 200}, quantity.NonNegative, 175 / math.Exp(t1*25/175), 175 * math.Exp(t1*25/175), LogT},
		// 1000 and 1200: mean 1100, SD 141.42, SE 100; exp(12.706 x 100 / 1100) = 3.17437:
		// 346.53 to 3491.81 (Student: -170.6 to 2370.6).
		{"log, by hand", []float64{1000, 1200}, quantity.NonNegative, 346.5253365510021, 3491.80816630391, LogT},
		// Bounded above only: the mirror of the above about 0.
		{"log, upper bound", []float64{-1000, -1200}, quantity.Range{Min: deg, Max: 0}, -3491.80816630391, -346.5253365510021, LogT},
		// A share, 80, 85 and 90%: p 0.85, SE_p 0.05 / sqrt(3) = 0.028868; theta =
		// asin(sqrt(0.85)) = 1.173097, h = 4.30265 x 0.028868 / (2 sqrt(0.85 x 0.15)) =
		// 0.173924; sin^2(0.999172) = 70.732%, sin^2(1.347021) = 95.076% (Student: 72.58
		// to 97.42).
		{"arcsine, by hand", []float64{80, 85, 90}, quantity.Percent, 70.73206750366197, 95.0755037856899, ArcsineT},
		// 99 and 100%: theta + h = 1.9504 passes pi/2, the scale's end: the interval
		// stops at 100% (Student: 93.15 to 105.85).
		{"arcsine at the end", []float64{99, 100}, quantity.Percent, 75.21356373508378, 100, ArcsineT},
		// CPU busy 60 and 99% (Student: -168 to 327%): p 0.795, SE_p 0.195, theta =
		// asin(sqrt(0.795)) = 1.1009, h = 12.706 x 0.195 / (2 sqrt(0.795 x 0.205)) = 3.0687,
		// past both ends of the scale: all of 0 to 100%, which is what two so different
		// repetitions say.
		{"arcsine, wide", []float64{60, 99}, quantity.Percent, 0, 100, ArcsineT},
		// 99.8 and 100.2%: values outside 0 to 100, which no scale of the range takes:
		// Student's 100 -/+ 12.706 x 0.2 cut at 100.
		{"clipped", []float64{99.8, 100.2}, quantity.Percent, 100 - t1*0.2, 100, ClippedT},
		// No spread: the interval is the value, also at a bound.
		{"no spread at 100%", []float64{100, 100}, quantity.Percent, 100, 100, ArcsineT},
		{"no spread at 0", []float64{0, 0, 0}, quantity.NonNegative, 0, 0, LogT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Summarise(tc.xs, tc.r)
			if s.Method != tc.method {
				t.Errorf("method %q, want %q", s.Method, tc.method)
			}
			near(t, "low", s.CILow, tc.low, 1e-9)
			near(t, "high", s.CIHigh, tc.high, 1e-9)
			if !tc.r.Contains(s.CILow) || !tc.r.Contains(s.CIHigh) || s.CILow > s.Mean || s.CIHigh < s.Mean {
				t.Errorf("interval %v..%v of mean %v leaves %v or misses the mean", s.CILow, s.CIHigh, s.Mean, tc.r)
			}
		})
	}
	// The log scale's interval is Student's when the spread is small: 1000 and 1001
	// (SE 0.5) within 0.05%.
	s, st := Summarise([]float64{1000, 1001}, quantity.NonNegative), Summarise([]float64{1000, 1001}, quantity.Real)
	near(t, "log low vs t", s.CILow, st.CILow, 5e-4)
	near(t, "log high vs t", s.CIHigh, st.CIHigh, 5e-4)
}

// tSurvivalBySimpson is 2 x P(T > |t|) for Student's t with df degrees of freedom,
// integrating the density f(x) = G((v+1)/2) / (sqrt(v pi) G(v/2)) (1 + x^2/v)^-((v+1)/2)
// from 0 to |t| by Simpson's rule: an independent check of the library's CDF.
func tSurvivalBySimpson(t, df float64) float64 {
	lg1, _ := math.Lgamma((df + 1) / 2)
	lg2, _ := math.Lgamma(df / 2)
	c := math.Exp(lg1-lg2) / math.Sqrt(df*math.Pi)
	f := func(x float64) float64 { return c * math.Pow(1+x*x/df, -(df+1)/2) }
	const n = 20000
	a, b := 0.0, math.Abs(t)
	h := (b - a) / n
	sum := f(a) + f(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(a+float64(i)*h)
	}
	return 1 - 2*sum*h/3
}

func TestWelchTest(t *testing.T) {
	t.Run("unequal variances", func(t *testing.T) {
		// base 1..5: mean 3, variance 2.5, var/n 0.5; x 2,4,..,10: mean 6, variance 10,
		// var/n 2. se^2 = 2.5, t = 3 / sqrt(2.5) = 1.897367; df = 2.5^2 / (0.5^2/4 + 2^2/4)
		// = 6.25 / 1.0625 = 5.882353.
		w := WelchTest([]float64{1, 2, 3, 4, 5}, []float64{2, 4, 6, 8, 10})
		near(t, "t", w.T, 3/math.Sqrt(2.5), 1e-12)
		near(t, "df", w.DF, 6.25/1.0625, 1e-12)
		near(t, "p", w.P, tSurvivalBySimpson(w.T, w.DF), 1e-8)
		if w.P < 0.05 || w.P > 0.2 {
			t.Errorf("p = %v, want about 0.1", w.P)
		}
	})
	t.Run("df 2 closed form", func(t *testing.T) {
		// base 5,5 has no spread, so df = n_x - 1 = 2 and se^2 = var(x)/3 = 1/3;
		// t = (2 - 5) / sqrt(1/3) = -3 sqrt(3). With df 2, the two-sided p is
		// 1 - |t| / sqrt(2 + t^2) = 1 - sqrt(27/29) = 0.035098.
		w := WelchTest([]float64{5, 5}, []float64{1, 2, 3})
		near(t, "t", w.T, -3*math.Sqrt(3), 1e-12)
		near(t, "df", w.DF, 2, 1e-12)
		near(t, "p", w.P, 1-math.Sqrt(27.0/29), 1e-9)
	})
	t.Run("df 1 closed form", func(t *testing.T) {
		// x 1,3: mean 2, variance 2, var/n 1; base 5,5 has no spread, so se^2 = 1,
		// t = (2 - 5) / 1 = -3 and df = n_x - 1 = 1, the Cauchy distribution:
		// p = 1 - 2 atan(3) / pi = 0.204833.
		w := WelchTest([]float64{5, 5}, []float64{1, 3})
		near(t, "t", w.T, -3, 1e-12)
		near(t, "df", w.DF, 1, 1e-12)
		near(t, "p", w.P, 1-2*math.Atan(3)/math.Pi, 1e-9)
	})
	t.Run("too few repetitions", func(t *testing.T) {
		w := WelchTest([]float64{1}, []float64{1, 2})
		if !math.IsNaN(w.P) || !math.IsNaN(w.T) {
			t.Errorf("one repetition: %+v, want NaN", w)
		}
	})
	t.Run("no spread", func(t *testing.T) {
		if w := WelchTest([]float64{4, 4}, []float64{4, 4, 4}); !math.IsNaN(w.P) {
			t.Errorf("identical constants: p = %v, want NaN", w.P)
		}
		w := WelchTest([]float64{4, 4}, []float64{5, 5})
		if w.P != 0 || !math.IsInf(w.T, 1) {
			t.Errorf("different constants: %+v, want p 0 and t +Inf", w)
		}
	})
}

func TestCompare(t *testing.T) {
	// 2,4,..,10 against 1..5: +100%, p about 0.1 (not significant at 5%).
	c := Compare([]float64{1, 2, 3, 4, 5}, []float64{2, 4, 6, 8, 10})
	near(t, "diff", c.DiffPct, 100, 1e-12)
	if c.Significant {
		t.Errorf("p %v: significant, want not", c.P)
	}
	// 1,2,3 against 5,5: mean 2 vs 5, -60%, p 0.035 (significant).
	c = Compare([]float64{5, 5}, []float64{1, 2, 3})
	near(t, "diff", c.DiffPct, -60, 1e-12)
	if !c.Significant {
		t.Errorf("p %v: not significant, want significant", c.P)
	}
	// A negative baseline: -4 to -2 is a rise of 50%.
	near(t, "diff from negative", Compare([]float64{-4}, []float64{-2}).DiffPct, 50, 1e-12)
	if c := Compare([]float64{0, 0}, []float64{1, 2}); !math.IsNaN(c.DiffPct) {
		t.Errorf("baseline 0: diff %v, want NaN", c.DiffPct)
	}
	if c := Compare(nil, []float64{1, 2}); !math.IsNaN(c.DiffPct) || c.Significant {
		t.Errorf("no baseline: %+v, want NaN and not significant", c)
	}
}

func TestJSONNulls(t *testing.T) {
	b, err := json.Marshal(Summarise([]float64{3}, quantity.NonNegative))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"n":1,"mean":3,"sd":null,"min":3,"max":3,"ci95_low":null,"ci95_high":null}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	b, err = json.Marshal(Compare([]float64{4, 4}, []float64{5, 5}))
	if err != nil {
		t.Fatal(err)
	}
	want = `{"diff_pct":25,"t":null,"df":null,"p":0,"significant":true}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}

	// Read back: null is NaN again.
	s := Summarise([]float64{10, 12, 14}, quantity.NonNegative)
	b, _ = json.Marshal(s)
	if !json.Valid(b) || !strings.Contains(string(b), `"ci95_method":"log-t"`) {
		t.Errorf("summary JSON %s does not say its method", b)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil || back != s {
		t.Errorf("round trip of %+v: %+v, %v", s, back, err)
	}
	if err := json.Unmarshal([]byte(`{"n":1,"mean":3,"sd":null,"min":3,"max":3,"ci95_low":null,"ci95_high":null}`), &back); err != nil || back.Mean != 3 || !math.IsNaN(back.SD) {
		t.Errorf("null SD read as %v, %v", back.SD, err)
	}
	c := Compare([]float64{1, 2, 3, 4, 5}, []float64{2, 4, 6, 8, 10})
	b, _ = json.Marshal(c)
	var cb Comparison
	if err := json.Unmarshal(b, &cb); err != nil || cb != c {
		t.Errorf("round trip of %+v: %+v, %v", c, cb, err)
	}
}
