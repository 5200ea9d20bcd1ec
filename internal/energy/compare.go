package energy

import "fmt"

// WattsPerKQphH is TPC-H's energy metric, Watts/KQphH@Size: the average power over
// the performance run divided by a thousandth of QphH@Size (docs/energy.md). TPC-Energy
// asks for the power measured at the wall; a modelled figure is an estimate of it.
func WattsPerKQphH(avgW, qphh float64) (float64, error) {
	if !finite(avgW) || avgW < 0 {
		return 0, fmt.Errorf("Watts/KQphH: average watts %g: want 0 or more", avgW)
	}
	if !finite(qphh) || qphh <= 0 {
		return 0, fmt.Errorf("Watts/KQphH: QphH@Size %g: want above 0", qphh)
	}
	return avgW / (qphh / 1000), nil
}

// System is one system's run of a workload for BreakEven: how long it took and its
// average power, idle included.
type System struct {
	Seconds float64
	Watts   float64
}

// BreakEvenResult compares the energy of two systems doing the same work.
type BreakEvenResult struct {
	// TimeRatio is T_fast / T_slow and PowerRatio P_slow / P_fast.
	TimeRatio  float64 `json:"time_ratio"`
	PowerRatio float64 `json:"power_ratio"`
	// FastUsesLess is TimeRatio < PowerRatio: the faster system's energy is less.
	FastUsesLess bool    `json:"fast_uses_less"`
	FastJ        float64 `json:"fast_j"`
	SlowJ        float64 `json:"slow_j"`
}

// BreakEven applies the rule of docs/energy.md, "Break-even": a faster system that
// draws more power uses less energy only if T_fast / T_slow < P_slow / P_fast, which is
// E_fast < E_slow written as ratios (for the SAN study's systems, 263.8 W / 475.7 W =
// 0.55: the DRAM-SSD system must finish in 55% of the HDD system's time).
func BreakEven(fast, slow System) (BreakEvenResult, error) {
	for _, s := range []struct {
		name string
		sys  System
	}{{"fast", fast}, {"slow", slow}} {
		if !finite(s.sys.Seconds) || s.sys.Seconds <= 0 || !finite(s.sys.Watts) || s.sys.Watts <= 0 {
			return BreakEvenResult{}, fmt.Errorf("break-even: the %s system's %g s at %g W: want time and watts above 0", s.name, s.sys.Seconds, s.sys.Watts)
		}
	}
	r := BreakEvenResult{
		TimeRatio:  fast.Seconds / slow.Seconds,
		PowerRatio: slow.Watts / fast.Watts,
		FastJ:      fast.Seconds * fast.Watts,
		SlowJ:      slow.Seconds * slow.Watts,
	}
	r.FastUsesLess = r.TimeRatio < r.PowerRatio
	return r, nil
}
