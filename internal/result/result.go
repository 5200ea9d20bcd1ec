package result

import "tierbench/internal/energy"

// Sections are the parts of a result that the run lifecycle attaches: each workload's
// result embeds them, so that their members appear at the top level of its JSON.
type Sections struct {
	// Storage says where the files were (tiers, emulated devices) and what the devices
	// did and used; absent when nothing was placed.
	Storage *Storage `json:"storage,omitempty"`
	// Energy is what the whole system drew over the run and its measured windows,
	// measured or modelled (package energy).
	Energy *energy.Section `json:"energy,omitempty"`
}

// Attached is implemented by results that embed Sections (through the embedded
// value's pointer method), for the lifecycle to fill.
type Attached interface {
	ResultSections() *Sections
}

// ResultSections is the result's sections, for the lifecycle to fill.
func (s *Sections) ResultSections() *Sections { return s }

// Status says how a run ended.
type Status string

const (
	StatusOK          Status = "ok"
	StatusFailed      Status = "failed"
	StatusInterrupted Status = "interrupted"
)

// Better says which way a metric improves.
type Better string

const (
	HigherIsBetter Better = "higher"
	LowerIsBetter  Better = "lower"
)

// Metric is one headline number of a result, for summaries and study tables: QphH@Size
// of a TPC-H run, NOPM of TPC-C, TPS of a mix.
type Metric struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit,omitempty"`
	Better Better  `json:"better"`
}
