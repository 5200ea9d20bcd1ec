package energy

import (
	"math"
	"testing"
)

// A TPC-C window of 100 s at 12,000 tpmC: the total drew 60 W on average (6,000 J),
// of which storage:data 10 W (1,000 J); idle joules cpu 2,000, base 2,000, storage 500.
// By hand: 60 / 12 = 5 Watts/KtpmC; storage 10 / 12 = 0.8333; server 50 / 12 = 4.1667;
// idle (2,000 + 2,000 + 500) / 100 = 45 W.
func TestTPCEnergyByHand(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	s := &Section{Windows: []WindowResult{{Label: "measured", Seconds: 100,
		Components: []Figures{
			{Name: "cpu", Joules: 3000, IdleJ: f(2000), InTotal: true},
			{Name: "base", Joules: 2000, IdleJ: f(2000), InTotal: true},
			{Name: "storage:data", Joules: 1000, IdleJ: f(500), InTotal: true},
			{Name: "meter", Joules: 9999, InTotal: false},
		},
		Total: Figures{AvgW: 60}}}}
	if err := s.AddTPCEnergy([]string{"measured"}, "Watts/KtpmC", 12000); err != nil {
		t.Fatal(err)
	}
	e := s.TPCEnergy
	if e.Value != 5 || math.Abs(e.IdleW-45) > 1e-12 {
		t.Errorf("%v Watts/KtpmC idle %v W, want 5 and 45", e.Value, e.IdleW)
	}
	if len(e.Subsystems) != 2 || math.Abs(e.Subsystems[0].Value-10.0/12) > 1e-12 || math.Abs(e.Subsystems[1].Value-50.0/12) > 1e-12 {
		t.Errorf("subsystems %+v, want storage 0.8333 and server 4.1667", e.Subsystems)
	}
	// A component without an idle figure makes the idle power unknown, not smaller.
	s.Windows[0].Components[0].IdleJ = nil
	if err := s.AddTPCEnergy([]string{"measured"}, "Watts/KtpmC", 12000); err != nil {
		t.Fatal(err)
	}
	if s.TPCEnergy.IdleW != 0 || s.TPCEnergy.IdleMethod != "unknown: cpu has no idle figure" {
		t.Errorf("idle %v (%s), want unknown", s.TPCEnergy.IdleW, s.TPCEnergy.IdleMethod)
	}
	if err := s.AddTPCEnergy([]string{"measured"}, "Watts/KtpmC", 0); err == nil {
		t.Error("no error for a performance of 0")
	}
}

// TPC-H's power (10 s at 50 W) and throughput (30 s at 70 W) tests together, at 2,000
// QphH@Size: (500 + 2,100) J / 40 s = 65 W, 65 / 2 = 32.5 Watts/KQphH@Size; storage
// (100 + 300) J / 40 s = 10 W, 5 a KQphH.
func TestTPCEnergyJoinsWindows(t *testing.T) {
	s := &Section{Windows: []WindowResult{
		{Label: "load", Seconds: 99, Total: Figures{AvgW: 1000}, Components: []Figures{{Name: "storage:d", Joules: 1e6, InTotal: true}}},
		{Label: "power", Seconds: 10, Total: Figures{AvgW: 50}, Components: []Figures{{Name: "storage:d", Joules: 100, InTotal: true}}},
		{Label: "throughput", Seconds: 30, Total: Figures{AvgW: 70}, Components: []Figures{{Name: "storage:d", Joules: 300, InTotal: true}}},
	}}
	if err := s.AddTPCEnergy([]string{"power", "throughput"}, "Watts/KQphH@Size", 2000); err != nil {
		t.Fatal(err)
	}
	e := s.TPCEnergy
	if math.Abs(e.AvgW-65) > 1e-12 || math.Abs(e.Value-32.5) > 1e-12 || math.Abs(e.Subsystems[0].Value-5) > 1e-12 || e.Window != "power+throughput" {
		t.Errorf("%+v, want 65 W, 32.5 Watts/KQphH@Size, storage 5, window power+throughput", e)
	}
	if err := s.AddTPCEnergy([]string{"power", "nope"}, "Watts/KQphH@Size", 2000); err == nil {
		t.Error("no error for a missing window")
	}
}
