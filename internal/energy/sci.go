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
	// NotCounted is hardware without an embodied figure (the host when
	// --host-embodied-kg 0 leaves it out).
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
	// Default says the figure is tierbench's default for a class of hardware, not
	// one given for this hardware (the host's without --host-embodied-kg).
	Default bool
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
	// Default: the kg is tierbench's default (HostEmbodiedKg), not the hardware's own.
	Default bool `json:"default,omitempty"`
}

// HostLifeYears is the host's life by default, HostLifeSource why.
const (
	HostLifeYears  = 6
	HostLifeSource = "6: the servers' life the large cloud providers depreciate over, as Tailpipe's methodology reports it (tailpipe.ai/methodology/lifespan, read 2026-11-28)"
)

// HostEmbodiedKg is the host's embodied carbon when --host-embodied-kg does not give
// it, and HostEmbodiedSource where it comes from: a published product carbon
// footprint of a common two-socket 1U rack server, its emissions other than its use.
// It stands for "a server"; the host's own figure replaces it.
const (
	HostEmbodiedKg     = 1314.1
	HostEmbodiedSource = "default: Dell's product carbon footprint of the PowerEdge R640 (i.dell.com/sites/csdocuments/CorpComm_Docs/en/carbon-footprint-poweredge-R640.pdf): " +
		"1,314.1 kg CO2e of its 7,730 kg over four years are not its use (manufacture, transport, end of life), " +
		"as compiled from Dell's reports in github.com/YousefEZ/server-co2e (read 2026-11-28)"
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
		sh := EmbodiedShare{Name: it.Name, Kg: it.Kg, LifeYears: it.LifeYears, TimeShare: share, G: it.Kg * 1000 * share, Source: it.Source, Default: it.Default}
		sci.Embodied = append(sci.Embodied, sh)
		sci.EmbodiedG += sh.G
	}
	if n := tps * w.Seconds; n > 0 && !math.IsInf(n, 0) {
		sci.GPerTransaction = (sci.OperationalG + sci.EmbodiedG) / n
	}
	s.SCI = sci
	return nil
}
