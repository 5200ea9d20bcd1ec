package energy

import (
	"fmt"
	"math"
)

// SCI is the Green Software Foundation's Software Carbon Intensity (ISO/IEC 21031) of
// one window (docs/energy.md, "SCI"): SCI = (O + M) per R, where O is the window's
// operational CO2 (its total's co2_g), M the embodied carbon of the hardware the run
// had, amortised over each item's life by the window's share of it, and R a
// transaction.
type SCI struct {
	Window  string  `json:"window"`
	Seconds float64 `json:"seconds"`
	// OperationalG is the window total's CO2 (what the total covers; see the window's
	// missing parts).
	OperationalG float64 `json:"operational_g"`
	// EmbodiedG sums the items' shares.
	EmbodiedG float64         `json:"embodied_g"`
	Embodied  []EmbodiedShare `json:"embodied"`
	// NotCounted is hardware without an embodied figure (the host unless
	// --host-embodied-kg gives one).
	NotCounted []string `json:"not_counted,omitempty"`
	// TPS is the result's headline transactions a second; GPerTransaction is
	// (OperationalG + EmbodiedG) / (TPS x Seconds).
	TPS             float64 `json:"tps,omitempty"`
	GPerTransaction float64 `json:"sci_g_per_transaction,omitempty"`
}

// Embodied is one piece of hardware's embodied carbon and the life it is spread over.
type Embodied struct {
	Name      string
	Kg        float64
	LifeYears float64
	Source    string
}

// EmbodiedShare is one item's embodied carbon and the window's share of it: Kg x 1000
// x Seconds / (LifeYears x SecondsPerYear) grams.
type EmbodiedShare struct {
	Name      string  `json:"name"`
	Kg        float64 `json:"kg_co2e"`
	LifeYears float64 `json:"life_years"`
	TimeShare float64 `json:"time_share"`
	G         float64 `json:"g"`
	Source    string  `json:"source"`
}

// HostLifeYears is the host's life by default, HostLifeSource why.
const (
	HostLifeYears  = 6
	HostLifeSource = "6: the servers' life the large cloud providers depreciate over, as Tailpipe's methodology reports it (tailpipe.ai/methodology/lifespan, read 2026-11-28)"
)

// SecondsPerYear is a year of 365.25 days.
const SecondsPerYear = 365.25 * 24 * 3600

// AddSCI works out the SCI of the window labelled label from its operational CO2, the
// items' embodied carbon and the result's TPS (0: no per-transaction figure), and
// attaches it to s. A window the section does not have is an error.
func (s *Section) AddSCI(label string, items []Embodied, notCounted []string, tps float64) error {
	w := s.Window(label)
	if w == nil {
		return fmt.Errorf("energy: no window %q for the SCI", label)
	}
	sci := &SCI{Window: label, Seconds: w.Seconds, OperationalG: w.Total.CO2g, NotCounted: notCounted, TPS: tps}
	for _, it := range items {
		if it.Kg <= 0 || it.LifeYears <= 0 {
			continue
		}
		share := w.Seconds / (it.LifeYears * SecondsPerYear)
		sh := EmbodiedShare{Name: it.Name, Kg: it.Kg, LifeYears: it.LifeYears, TimeShare: share, G: it.Kg * 1000 * share, Source: it.Source}
		sci.Embodied = append(sci.Embodied, sh)
		sci.EmbodiedG += sh.G
	}
	if n := tps * w.Seconds; n > 0 && !math.IsInf(n, 0) {
		sci.GPerTransaction = (sci.OperationalG + sci.EmbodiedG) / n
	}
	s.SCI = sci
	return nil
}
