package result

import (
	"tierbench/internal/cost"
	"tierbench/internal/energy"
	"tierbench/internal/host"
	"tierbench/internal/monitor"
	"tierbench/internal/verdict"
)

// Sections are the parts of a result that the run lifecycle attaches: each workload's
// result embeds them, so that their members appear at the top level of its JSON.
type Sections struct {
	// Storage says where the files were (tiers, emulated devices) and what the devices
	// did and used; absent when nothing was placed.
	Storage *Storage `json:"storage,omitempty"`
	// Energy is what the whole system drew over the run and its measured windows,
	// measured or modelled (package energy).
	Energy *energy.Section `json:"energy,omitempty"`
	// Cost is what the run's cloud volumes and host cost over its headline window,
	// and per unit of work (package cost); absent when nothing is priced.
	Cost *cost.Section `json:"cost,omitempty"`
	// Monitoring summarises the samples of metrics.jsonl (package monitor) over the
	// run and each measured window; absent when nothing was sampled (--sample off).
	Monitoring *monitor.Summary `json:"monitoring,omitempty"`
	// Verdict says what limited each measured window, with its evidence (package
	// verdict); absent when nothing was sampled or the result has no windows to judge.
	Verdict *verdict.Section `json:"verdict,omitempty"`
	// Host is the machine the run ran on: its name, kernel, CPU, memory, the disks
	// under the run's directories, the tierbench build and the engine's version.
	Host *host.Info `json:"host,omitempty"`
}

// Attached is implemented by results that embed Sections (through the embedded
// value's pointer method), for the lifecycle to fill.
type Attached interface {
	ResultSections() *Sections
}

// ResultSections is the result's sections, for the lifecycle to fill.
func (s *Sections) ResultSections() *Sections { return s }

// File is the name of a run's result in its directory, whatever the workload (the
// workloads' own ResultFile constants are this name).
const File = "result.json"

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
