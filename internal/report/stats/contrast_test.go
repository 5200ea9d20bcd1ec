package stats

import (
	"encoding/json"
	"math"
	"testing"
)

// t975df4 is t(0.975) with 4 degrees of freedom in closed form: for df 4 the t
// distribution's quantile is 2 sqrt(q - 1), q = cos(acos(sqrt(a)) / 3) / sqrt(a),
// a = 4 p (1 - p); 2.776445 (printed tables: 2.776).
func t975df4() float64 {
	a := 4 * 0.975 * 0.025
	q := math.Cos(math.Acos(math.Sqrt(a))/3) / math.Sqrt(a)
	return 2 * math.Sqrt(q-1)
}

func TestDiffOfMeans(t *testing.T) {
	t.Run("df 2 closed form", func(t *testing.T) {
		// x 1,2,3 (mean 2, variance 1) against base 5,5 (no spread): difference -3,
		// se^2 = 1/3, df = n_x - 1 = 2, t(0.975, 2) = sqrt(1.805 / 0.0975) = 4.302653;
		// half-width 4.302653 x 0.577350 = 2.484138: -5.484138 to -0.515862.
		iv := DiffOfMeans([]float64{5, 5}, []float64{1, 2, 3})
		near(t, "value", iv.Value, -3, 1e-12)
		near(t, "df", iv.DF, 2, 1e-12)
		near(t, "low", iv.Low, -5.484138, 1e-6)
		near(t, "high", iv.High, -0.515862, 1e-6)
	})
	t.Run("agrees with Welch's test", func(t *testing.T) {
		// The interval leaves out 0 exactly when Welch's p < 0.05.
		for _, c := range []struct{ base, x []float64 }{
			{[]float64{1, 2, 3, 4, 5}, []float64{2, 4, 6, 8, 10}}, // p about 0.1
			{[]float64{5, 5}, []float64{1, 2, 3}},                 // p 0.035
			{[]float64{10, 11, 12}, []float64{13, 14, 15}},
		} {
			iv, w := DiffOfMeans(c.base, c.x), WelchTest(c.base, c.x)
			near(t, "df", iv.DF, w.DF, 1e-12)
			if excludes0 := iv.Low > 0 || iv.High < 0; excludes0 != (w.P < Alpha) {
				t.Errorf("%v vs %v: interval %v to %v, p %v", c.x, c.base, iv.Low, iv.High, w.P)
			}
		}
	})
	t.Run("too few repetitions", func(t *testing.T) {
		iv := DiffOfMeans([]float64{4}, []float64{6, 8})
		near(t, "value", iv.Value, 3, 1e-12)
		if iv.OK() {
			t.Errorf("one repetition: interval %v to %v, want none", iv.Low, iv.High)
		}
	})
	t.Run("no spread", func(t *testing.T) {
		iv := DiffOfMeans([]float64{4, 4}, []float64{6, 6})
		if iv.Low != 2 || iv.High != 2 || !math.IsNaN(iv.DF) {
			t.Errorf("constants: %+v, want the interval 2 to 2 and no df", iv)
		}
	})
}

func TestRatioOfMeans(t *testing.T) {
	t.Run("df 4 by hand", func(t *testing.T) {
		// x 20,24,28 (mean 24, variance 16) over base 10,12,14 (mean 12, variance 4):
		// ratio 2. Each log-mean's variance is s^2 / (n m^2): 16 / (3 x 576) = 1/108
		// and 4 / (3 x 144) = 1/108; se^2 = 1/54, se = 0.136083; df = (1/54)^2 /
		// ((1/108)^2/2 x 2) = 4. Half-width on the log scale 2.776445 x 0.136083 =
		// 0.377826, so 2 exp(-/+0.377826) = 1.370699 to 2.918219.
		iv := RatioOfMeans([]float64{10, 12, 14}, []float64{20, 24, 28})
		near(t, "t(0.975, 4)", t975df4(), 2.776445, 1e-6)
		near(t, "value", iv.Value, 2, 1e-12)
		near(t, "df", iv.DF, 4, 1e-12)
		near(t, "low", iv.Low, 2*math.Exp(-t975df4()*math.Sqrt(1.0/54)), 1e-9)
		near(t, "high", iv.High, 2*math.Exp(t975df4()*math.Sqrt(1.0/54)), 1e-9)
		near(t, "low by hand", iv.Low, 1.370699, 1e-6)
		near(t, "high by hand", iv.High, 2.918219, 1e-6)
	})
	t.Run("df 2 closed form", func(t *testing.T) {
		// x 1,2,3 over base 5,5 (no spread): 0.4; the log's variance is 1 / (3 x 4)
		// = 1/12 from x alone, so df = 2 and the interval is 0.4 exp(-/+4.302653 x
		// 0.288675) = 0.115514 to 1.385108.
		iv := RatioOfMeans([]float64{5, 5}, []float64{1, 2, 3})
		near(t, "value", iv.Value, 0.4, 1e-12)
		near(t, "df", iv.DF, 2, 1e-12)
		near(t, "low", iv.Low, 0.115514, 1e-6)
		near(t, "high", iv.High, 1.385108, 1e-6)
	})
	t.Run("either way round", func(t *testing.T) {
		// b/a's interval is a/b's inverted.
		a, b := []float64{31, 35, 30, 33}, []float64{10, 14, 11}
		ab, ba := RatioOfMeans(b, a), RatioOfMeans(a, b)
		near(t, "value", ab.Value*ba.Value, 1, 1e-12)
		near(t, "low", ab.Low*ba.High, 1, 1e-12)
		near(t, "high", ab.High*ba.Low, 1, 1e-12)
		near(t, "df", ab.DF, ba.DF, 1e-12)
	})
	t.Run("cannot be made", func(t *testing.T) {
		for name, iv := range map[string]Interval{
			"one repetition": RatioOfMeans([]float64{10}, []float64{20, 22}),
			"a zero mean":    RatioOfMeans([]float64{0, 0}, []float64{20, 22}),
			"a negative":     RatioOfMeans([]float64{-3, -4}, []float64{20, 22}),
			"no values":      RatioOfMeans(nil, []float64{20, 22}),
		} {
			if iv.OK() {
				t.Errorf("%s: interval %v to %v, want none", name, iv.Low, iv.High)
			}
		}
		near(t, "one repetition's value (the ratio of the means)", RatioOfMeans([]float64{10}, []float64{20, 22}).Value, 2.1, 1e-12)
	})
}

func TestProductOfMeans(t *testing.T) {
	// (a/b) / (c/d) with a = c = 20,24,28 and b = d = 10,12,14: 1. Four terms of
	// variance 1/108 each on the log scale: se^2 = 4/108 = 1/27, df = (1/27)^2 /
	// (4 x (1/108)^2 / 2) = 8; t(0.975, 8) = 2.306004 (tables: 2.306), so exp(-/+
	// 2.306004 x 0.192450) = 0.641600 to 1.558604.
	a, b := []float64{20, 24, 28}, []float64{10, 12, 14}
	iv := ProductOfMeans(Power{a, 1}, Power{b, -1}, Power{a, -1}, Power{b, 1})
	near(t, "value", iv.Value, 1, 1e-12)
	near(t, "df", iv.DF, 8, 1e-12)
	near(t, "t(0.975, 8)", TQuantile(0.975, 8), 2.306004, 1e-6)
	near(t, "low", iv.Low, math.Exp(-TQuantile(0.975, 8)*math.Sqrt(1.0/27)), 1e-12)
	near(t, "low by hand", iv.Low, 0.641600, 1e-6)
	near(t, "high by hand", iv.High, 1.558604, 1e-6)
	// A ratio is the product of a numerator and a denominator.
	r, p := RatioOfMeans(b, a), ProductOfMeans(Power{a, 1}, Power{b, -1})
	if r != p {
		t.Errorf("RatioOfMeans %+v, ProductOfMeans %+v", r, p)
	}
}

func TestIntervalJSON(t *testing.T) {
	b, err := json.Marshal(DiffOfMeans([]float64{4}, []float64{6}))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"value":2,"ci95_low":null,"ci95_high":null,"df":null}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	iv := RatioOfMeans([]float64{10, 12, 14}, []float64{20, 24, 28})
	b, _ = json.Marshal(iv)
	var back Interval
	if err := json.Unmarshal(b, &back); err != nil || back != iv {
		t.Errorf("round trip of %+v: %+v, %v", iv, back, err)
	}
}

// TestMeanOf: 10, 12, 14 by hand: mean 12, s² = 4, se = sqrt(4/3) = 1.154701, t(0.975,
// 2) = 4.302653, half-width 4.968275: 7.031725 to 16.968275 with 2 degrees of
// freedom; one value has no interval.
func TestMeanOf(t *testing.T) {
	iv := MeanOf([]float64{10, 12, 14})
	if math.Abs(iv.Value-12) > 1e-12 || math.Abs(iv.Low-7.031725) > 1e-5 || math.Abs(iv.High-16.968275) > 1e-5 || math.Abs(iv.DF-2) > 1e-9 {
		t.Errorf("MeanOf(10, 12, 14) = %+v, want 12 (7.031725 to 16.968275, 2 df)", iv)
	}
	if one := MeanOf([]float64{5}); one.Value != 5 || one.OK() {
		t.Errorf("MeanOf(5) = %+v, want 5 without an interval", one)
	}
}
