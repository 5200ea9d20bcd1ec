package energy

import (
	"testing"
	"time"
)

// TestIntegrateSteps: averages over intervals are flat pieces, so a window's joules
// are watts times the part of each interval inside it.
func TestIntegrateSteps(t *testing.T) {
	s := newSeries(t0)
	s.addStep(at(0), at(1), 10)
	s.addStep(at(1), at(2), 20)
	s.addStep(at(2), at(3), 40)
	for _, c := range []struct {
		name       string
		from, to   float64
		j, covered float64
	}{
		{"whole", 0, 3, 10 + 20 + 40, 3},
		{"inside, cutting intervals", 0.5, 2.5, 10*0.5 + 20 + 40*0.5, 2},
		{"starting before the series", -1, 1, 10, 1},
		{"after the series", 4, 5, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			j, cov := s.Integrate(at(c.from), at(c.to))
			if !near(j, c.j) || !near(cov, c.covered) {
				t.Errorf("Integrate(%g, %g) = %g J over %g s, want %g J over %g s", c.from, c.to, j, cov, c.j, c.covered)
			}
		})
	}
}

// TestIntegrateReadings: instantaneous readings integrate by trapezoids, cut at the
// window's edges by linear interpolation, and the end readings are held for one
// spacing.
func TestIntegrateReadings(t *testing.T) {
	rs := []Reading{{at(0), 100}, {at(1), 200}, {at(2), 200}, {at(3), 100}}
	s, spacing := readingsSeries(rs, 0)
	if spacing != 1 {
		t.Fatalf("spacing %g, want 1", spacing)
	}
	for _, c := range []struct {
		name       string
		from, to   float64
		j, covered float64
	}{
		// (100+200)/2 + 200 + (200+100)/2
		{"the readings' span", 0, 3, 150 + 200 + 150, 3},
		// 150 W at 0.5 s and 2.5 s by interpolation: (150+200)/2 x 0.5 twice, and 200
		{"cut inside", 0.5, 2.5, 87.5 + 200 + 87.5, 2},
		// the first and last readings held for 1 s each side
		{"held at the ends", -1, 4, 100 + 500 + 100, 5},
		{"beyond the hold: not covered", -2, 5, 700, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			j, cov := s.Integrate(at(c.from), at(c.to))
			if !near(j, c.j) || !near(cov, c.covered) {
				t.Errorf("Integrate(%g, %g) = %g J over %g s, want %g J over %g s", c.from, c.to, j, cov, c.j, c.covered)
			}
		})
	}
}

// TestIntegrateRamp: a meter reading a steady ramp from 0 to 10 W over 10 s; the
// trapezoid rule is exact for it: 50 J.
func TestIntegrateRamp(t *testing.T) {
	var rs []Reading
	for i := range 11 {
		rs = append(rs, Reading{at(float64(i)), float64(i)})
	}
	s, _ := readingsSeries(rs, 0)
	if j, cov := s.Integrate(at(0), at(10)); !near(j, 50) || !near(cov, 10) {
		t.Errorf("ramp: %g J over %g s, want 50 J over 10 s", j, cov)
	}
}

// TestReadingsGap: readings further apart than GapSpacings spacings are not joined:
// the meter said nothing in between.
func TestReadingsGap(t *testing.T) {
	var rs []Reading
	for _, x := range []float64{0, 1, 2, 10, 11, 12} {
		rs = append(rs, Reading{at(x), 100})
	}
	s, _ := readingsSeries(rs, 0)
	// Covered: [0, 3] (2 s of readings and 1 s held; the hold before 0 is outside) and
	// [9, 12].
	if j, cov := s.Integrate(at(0), at(12)); !near(j, 600) || !near(cov, 6) {
		t.Errorf("%g J over %g s, want 600 J over 6 s", j, cov)
	}
	// A lone reading has no spacing and covers nothing.
	lone, spacing := readingsSeries([]Reading{{at(0), 100}}, 0)
	if j, cov := lone.Integrate(at(-1), at(1)); j != 0 || cov != 0 || spacing != 0 {
		t.Errorf("a lone reading: %g J over %g s, spacing %g", j, cov, spacing)
	}
	if _, _, ok := newSeries(time.Time{}).span(); ok {
		t.Error("an empty series has a span")
	}
}
