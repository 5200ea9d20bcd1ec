package tpch

import (
	"tierbench/internal/engine"
	"tierbench/internal/result"
)

// Result is everything a TPC-H run measured; it is written to DIR/result.json and
// holds every input of every metric, so the metrics can be recomputed from it alone.
type Result struct {
	Tool string `json:"tool"`
	// Benchmark names the workload, "tpch" (workload.ResultMeta); results written
	// before it existed are known by their sf.
	Benchmark string      `json:"benchmark"`
	SF        float64     `json:"sf"`
	Streams   int         `json:"streams"`
	Seed      int64       `json:"seed"`
	Engine    engine.Info `json:"engine"`
	// Started and Finished are RFC 3339 timestamps.
	Started  string `json:"started"`
	Finished string `json:"finished,omitempty"`

	Load       *LoadResult       `json:"load,omitempty"`
	Power      *PowerResult      `json:"power,omitempty"`
	Throughput *ThroughputResult `json:"throughput,omitempty"`
	Metrics    *Metrics          `json:"metrics,omitempty"`
	Validation *Validation       `json:"validation,omitempty"`
	// Sections are what the run lifecycle attaches: the storage section.
	result.Sections

	// Reportable is false when the run cannot be published as a TPC-H result;
	// NotReportable lists every reason (SF not official, timeouts, failed validation...).
	Reportable    bool     `json:"reportable"`
	NotReportable []string `json:"not_reportable,omitempty"`
	// Failed is set when the run stopped early; what finished before is kept.
	Failed string `json:"failed,omitempty"`
}

// LoadResult times each step of the load test (Clause 5.1.1.2), in seconds.
type LoadResult struct {
	Steps   map[string]float64 `json:"steps"`
	Order   []string           `json:"order"`
	Total   float64            `json:"total"`
	Rows    map[string]int64   `json:"rows"`
	Skipped bool               `json:"skipped,omitempty"`
	// Writers are the sessions that loaded the data at once (the engine's limit on
	// concurrent writers, the CPUs); the other steps take one.
	Writers int `json:"writers,omitempty"`
}

// PowerResult holds the power test's intervals in seconds (unrounded; the metric
// code applies the spec's rounding).
type PowerResult struct {
	Queries map[string]float64 `json:"queries"` // "Q1".."Q22"
	RF1     float64            `json:"RF1"`
	RF2     float64            `json:"RF2"`
	// UpdateSet is the update set the power test's RF1/RF2 used.
	UpdateSet int `json:"update_set"`
	// TimedOut lists queries cancelled by --query-timeout.
	TimedOut []string `json:"timed_out,omitempty"`
}

// ThroughputResult holds the throughput test's measurements in seconds.
type ThroughputResult struct {
	Seconds  float64              `json:"seconds"` // Ts
	Streams  []map[string]float64 `json:"streams"` // per query stream: "Q1".."Q22" -> seconds
	Refresh  []RefreshPair        `json:"refresh"`
	TimedOut []string             `json:"timed_out,omitempty"` // "stream 2 Q18"
}

// RefreshPair is one RF1/RF2 pair of the throughput test's refresh stream.
type RefreshPair struct {
	UpdateSet int     `json:"update_set"`
	RF1       float64 `json:"RF1"`
	RF2       float64 `json:"RF2"`
}

// Metrics are the official metrics (Clause 5.4), computed from intervals rounded as
// the spec says, and their twins from unrounded intervals, clearly labelled.
type Metrics struct {
	PowerAtSize               float64 `json:"power_at_size"`
	ThroughputAtSize          float64 `json:"throughput_at_size"`
	QphHAtSize                float64 `json:"qphh_at_size"`
	PowerAtSizeUnrounded      float64 `json:"power_at_size_unrounded"`
	ThroughputAtSizeUnrounded float64 `json:"throughput_at_size_unrounded"`
	QphHAtSizeUnrounded       float64 `json:"qphh_at_size_unrounded"`
}

// Validation reports the answer check of --validate or --validate-against.
type Validation struct {
	Against  string   `json:"against"` // "TPC qualification answers" or an engine name
	Passed   bool     `json:"passed"`
	Checked  int      `json:"checked"`
	Failures []string `json:"failures,omitempty"` // "Q3 row 4 column revenue: got 1.0, want 2.0"
}
