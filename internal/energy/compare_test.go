package energy

import (
	"strings"
	"testing"
)

func TestWattsPerKQphH(t *testing.T) {
	// 500 W at 25,000 QphH@Size: 500 / 25 = 20.
	if got, err := WattsPerKQphH(500, 25000); err != nil || got != 20 {
		t.Errorf("WattsPerKQphH(500, 25000) = %g, %v", got, err)
	}
	for _, c := range [][2]float64{{500, 0}, {-1, 1000}} {
		if _, err := WattsPerKQphH(c[0], c[1]); err == nil {
			t.Errorf("WattsPerKQphH(%g, %g) accepted", c[0], c[1])
		}
	}
}

// TestBreakEven with the SAN study's systems: the DRAM-SSD system (475.7 W) against
// the HDD system (263.8 W) must finish in under 263.8 / 475.7 = 0.5546 of its time.
func TestBreakEven(t *testing.T) {
	slow := System{Seconds: 100, Watts: 263.8}
	r, err := BreakEven(System{Seconds: 50, Watts: 475.7}, slow)
	if err != nil {
		t.Fatal(err)
	}
	if !near(r.PowerRatio, 263.8/475.7) || r.TimeRatio != 0.5 || !r.FastUsesLess || !near(r.FastJ, 23785) || !near(r.SlowJ, 26380) {
		t.Errorf("at half the time: %+v", r)
	}
	r, _ = BreakEven(System{Seconds: 60, Watts: 475.7}, slow)
	if r.FastUsesLess || !near(r.FastJ, 28542) {
		t.Errorf("at 60%% of the time: %+v", r)
	}
	if _, err := BreakEven(System{Seconds: 0, Watts: 475.7}, slow); err == nil || !strings.Contains(err.Error(), "fast system") {
		t.Errorf("zero time: %v", err)
	}
}
