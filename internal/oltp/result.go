package oltp

import (
	"path/filepath"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/placement"
)

// ResultFile and IntervalsFile are the names of the files a run writes in its output
// directory.
const (
	ResultFile    = "result.json"
	IntervalsFile = "intervals.jsonl"
)

// RunResult is what the result.json of every run of virtual users holds (`oltp run`,
// `tpcc run`); each workload's result embeds it, so its fields appear at the top
// level, and adds its own.
type RunResult struct {
	Benchmark   string            `json:"benchmark"`
	Status      string            `json:"status"`
	Error       string            `json:"error,omitempty"`
	Started     time.Time         `json:"started"`
	Engine      engine.Info       `json:"engine"`
	RampS       float64           `json:"ramp_s"`
	DurationS   float64           `json:"duration_s"`
	Loop        string            `json:"loop"`
	Rate        float64           `json:"rate,omitempty"`
	Seed        int64             `json:"seed"`
	Definitions map[string]string `json:"definitions"`
	// The headline numbers are those of the workload's best level (the only level of a
	// plain run); Headline sets them.
	Users        int                         `json:"users"`
	TPS          float64                     `json:"tps"`
	QPS          float64                     `json:"qps"`
	Transactions map[string]metrics.OpReport `json:"transactions"`
	// IO is that level's I/O rates over its window (see Definitions["io"]).
	IO      *metrics.IORates `json:"io,omitempty"`
	IOError string           `json:"io_error,omitempty"`
	// ClientCPU is what tierbench itself spent over that level's window (see
	// Definitions["client_cpu"]).
	ClientCPU *ClientCPU `json:"client_cpu,omitempty"`
	// Sweep has one row per level with the saturation point marked (sweeps only).
	Sweep []metrics.Level `json:"sweep,omitempty"`
	// IntervalsFile holds one JSON line per report interval.
	IntervalsFile string `json:"intervals_file"`
	// Storage says where the files were and what the devices did and used over the
	// whole command (engine start to stop); absent when nothing was placed.
	Storage *placement.Storage `json:"storage,omitempty"`
}

// NewRunResult begins the result of a run of benchmark on the engine info describes:
// status ok, started now, a closed loop unless c.Rate asks for an open one.
func NewRunResult(benchmark string, info engine.Info, c Config, seed int64, definitions map[string]string) RunResult {
	r := RunResult{
		Benchmark: benchmark, Status: string(StatusOK), Started: time.Now().UTC(), Engine: info,
		RampS: c.Ramp.Seconds(), DurationS: c.Duration.Seconds(), Loop: "closed", Rate: c.Rate, Seed: seed,
		Definitions: definitions, IntervalsFile: IntervalsFile,
	}
	if c.Rate > 0 {
		r.Loop = "open"
	}
	return r
}

// LevelFailed records that a level ended with err: the status the level reached
// (failed when it measured nothing) and the cause.
func (r *RunResult) LevelFailed(status Status, err error) {
	if status == "" {
		status = StatusFailed
	}
	r.Status, r.Error = string(status), err.Error()
}

// Headline makes l's numbers the result's headline, and levels (when more than one)
// the sweep table.
func (r *RunResult) Headline(l LevelReport, levels []LevelReport) {
	r.Users, r.TPS, r.QPS, r.Transactions = l.Users, l.TPS, l.QPS, l.Transactions
	r.IO, r.IOError, r.ClientCPU = l.IO, l.IOError, l.ClientCPU
	if len(levels) > 1 {
		r.Sweep = SweepTable(levels)
	}
}

// WriteResultFile writes result, a workload's result embedding RunResult, to
// dir/result.json atomically.
func WriteResultFile(dir string, result any) error {
	return metrics.WriteJSONFile(filepath.Join(dir, ResultFile), result)
}
