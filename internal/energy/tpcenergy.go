package energy

import (
	"fmt"
	"strings"
)

// TPCEnergy is TPC-Energy's primary metric for the measured window (docs/energy.md,
// "TPC-Energy"): the average watts over the performance run per thousand units of the
// benchmark's performance metric, Watts/KtpmC for TPC-C and Watts/KQphH@Size for
// TPC-H, for the whole system and for its storage and server subsystems, with the
// idle power. TPC-Energy asks for power measured at the wall; where the figures are
// modelled (Measured false) they estimate it.
type TPCEnergy struct {
	Window string `json:"window"`
	// Metric is "Watts/KtpmC" or "Watts/KQphH@Size"; Performance is tpmC (TPC-C's New
	// Order transactions a minute) or QphH@Size.
	Metric      string  `json:"metric"`
	Performance float64 `json:"performance"`
	AvgW        float64 `json:"avg_w"`
	Value       float64 `json:"value"`
	Measured    bool    `json:"measured"`
	// Subsystems break the total out as TPC-Energy does: storage (the emulated
	// devices) and server (the rest of the total).
	Subsystems []TPCSubsystem `json:"subsystems"`
	// IdleW is the total's idle watts and IdleMethod how it was obtained: modelled from
	// each component's idle figure in the window (tierbench measures no idle period
	// before the run), or "unknown" where a component has none.
	IdleW      float64 `json:"idle_w"`
	IdleMethod string  `json:"idle_method"`
}

// TPCSubsystem is one subsystem's average watts and its share of the metric.
type TPCSubsystem struct {
	Name  string  `json:"name"`
	AvgW  float64 `json:"avg_w"`
	Value float64 `json:"value"`
}

// AddTPCEnergy works out the metric over the windows labelled labels (TPC-H's power
// and throughput tests together, TPC-C's measured window) from their totals and
// components, with performance tpmC (metric "Watts/KtpmC") or QphH@Size (metric
// "Watts/KQphH@Size"), and attaches it to s.
func (s *Section) AddTPCEnergy(labels []string, metric string, performance float64) error {
	w, err := s.joined(labels)
	if err != nil {
		return fmt.Errorf("energy: %s: %w", metric, err)
	}
	if !finite(performance) || performance <= 0 || w.Seconds <= 0 {
		return fmt.Errorf("energy: %s: performance %g over %g s: want both above 0", metric, performance, w.Seconds)
	}
	label := w.Label
	k := performance / 1000
	t := &TPCEnergy{Window: label, Metric: metric, Performance: performance, AvgW: w.Total.AvgW, Value: w.Total.AvgW / k,
		Measured: w.Total.Measured, IdleMethod: "modelled: each component's idle watts in the window"}
	var storage, idleJ float64
	for _, c := range w.Components {
		if !c.InTotal {
			continue
		}
		if strings.HasPrefix(c.Name, "storage:") {
			storage += c.Joules / w.Seconds
		}
		if c.IdleJ == nil {
			t.IdleMethod = "unknown: " + c.Name + " has no idle figure"
			continue
		}
		idleJ += *c.IdleJ
	}
	if !strings.HasPrefix(t.IdleMethod, "unknown") {
		t.IdleW = idleJ / w.Seconds
	}
	t.Subsystems = []TPCSubsystem{
		{Name: "storage", AvgW: storage, Value: storage / k},
		{Name: "server", AvgW: t.AvgW - storage, Value: (t.AvgW - storage) / k},
	}
	s.TPCEnergy = t
	return nil
}

// joined is the windows labelled labels as one: their seconds, each component's joules
// and idle joules, and the total's joules, summed (every window lists the same
// components in the same order); the total's average watts over the summed seconds.
func (s *Section) joined(labels []string) (WindowResult, error) {
	var out WindowResult
	var totalJ float64
	for i, l := range labels {
		w := s.Window(l)
		if w == nil {
			return out, fmt.Errorf("no window %q", l)
		}
		if i == 0 {
			out = WindowResult{Label: strings.Join(labels, "+"), Total: Figures{Measured: w.Total.Measured}}
			for _, c := range w.Components {
				cc := Figures{Name: c.Name, InTotal: c.InTotal}
				if c.IdleJ != nil {
					cc.IdleJ = new(float64)
				}
				out.Components = append(out.Components, cc)
			}
		}
		if len(w.Components) != len(out.Components) {
			return out, fmt.Errorf("window %q has other components than %q", l, labels[0])
		}
		out.Seconds += w.Seconds
		totalJ += w.Total.AvgW * w.Seconds
		out.Total.Measured = out.Total.Measured && w.Total.Measured
		for j, c := range w.Components {
			o := &out.Components[j]
			o.Joules += c.Joules
			if c.IdleJ == nil || o.IdleJ == nil {
				o.IdleJ = nil
			} else {
				*o.IdleJ += *c.IdleJ
			}
		}
	}
	if out.Seconds > 0 {
		out.Total.AvgW = totalJ / out.Seconds
	}
	return out, nil
}
