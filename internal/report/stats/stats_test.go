package stats

import (
	"encoding/json"
	"math"
	"testing"
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
	s := Summarise([]float64{14, 10, 12})
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

	// Large values with a small spread: a one-pass sum of squares loses the spread.
	big := Summarise([]float64{1e9 + 1, 1e9 + 2, 1e9 + 3})
	near(t, "sd of 1e9+{1,2,3}", big.SD, 1, 1e-9)

	one := Summarise([]float64{7})
	near(t, "mean of one", one.Mean, 7, 0)
	for name, v := range map[string]float64{"sd": one.SD, "ci low": one.CILow, "ci high": one.CIHigh} {
		near(t, name+" of one", v, math.NaN(), 0)
	}
	none := Summarise(nil)
	if none.N != 0 || !math.IsNaN(none.Mean) || !math.IsNaN(none.Min) {
		t.Errorf("Summarise(nil) = %+v, want N 0 and NaNs", none)
	}
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
	b, err := json.Marshal(Summarise([]float64{3}))
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
	s := Summarise([]float64{10, 12, 14})
	b, _ = json.Marshal(s)
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
