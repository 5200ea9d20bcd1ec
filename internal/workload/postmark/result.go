package postmark

import (
	"time"

	"tierbench/internal/metrics"
	"tierbench/internal/result"
)

// Result is what a run measured, as result.json holds it: Postmark's report (counts,
// rates, phase times) plus a latency histogram summary per operation, overall and per
// phase. It is complete also for a failed or interrupted run, up to where it stopped.
type Result struct {
	// Benchmark names the workload, "postmark" (older results: "files").
	Benchmark string `json:"benchmark"`
	// Model names what the workload reproduces.
	Model   string        `json:"model"`
	Status  result.Status `json:"status"` // ok, failed, interrupted
	Error   string        `json:"error,omitempty"`
	Started time.Time     `json:"started"`
	Preset  string        `json:"preset,omitempty"`
	// Dir is the directory the run's working directory was made in.
	Dir    string `json:"dir"`
	Config Config `json:"config"`
	// IdleS is the length of an idle run (preset non-load).
	IdleS float64 `json:"idle_s,omitempty"`
	Counts
	Rates Rates `json:"rates"`
	// ElapsedS is Postmark's total time: from the first file created to the last one
	// deleted (the three phases).
	ElapsedS float64       `json:"elapsed_s"`
	Phases   []PhaseResult `json:"phases"`
	// Ops summarises each operation over the whole run; per_second is over ElapsedS.
	Ops map[string]metrics.OpReport `json:"ops"`
	// Estimate is what the run was worked out to do before it started (the capacity
	// check's basis); its counts equal the run's when it completes.
	Estimate    Estimate          `json:"estimate"`
	Definitions map[string]string `json:"definitions"`
	// Sections are what the run lifecycle attaches: the storage section when the
	// files were on a placed tier, and the energy section.
	result.Sections
}

// PhaseResult is one phase's length and operations; per_second is over the phase.
type PhaseResult struct {
	Name    string                      `json:"name"`
	Seconds float64                     `json:"seconds"`
	Ops     map[string]metrics.OpReport `json:"ops"`
}

// Rates are Postmark's per-second figures, each over the time Postmark divides it by
// (Definitions says which), but from the monotonic clock instead of whole seconds.
type Rates struct {
	TransactionsPerS float64 `json:"transactions_per_s"`
	CreatedPerS      float64 `json:"created_per_s"`
	CreatedAlonePerS float64 `json:"created_alone_per_s"`
	CreatedMixedPerS float64 `json:"created_mixed_per_s"`
	ReadPerS         float64 `json:"read_per_s"`
	AppendedPerS     float64 `json:"appended_per_s"`
	DeletedPerS      float64 `json:"deleted_per_s"`
	DeletedAlonePerS float64 `json:"deleted_alone_per_s"`
	DeletedMixedPerS float64 `json:"deleted_mixed_per_s"`
	// MB/s are 10^6 bytes a second, as tierbench's other I/O rates; MiB/s are 2^20,
	// which Postmark prints as "megabytes".
	ReadMBs     float64 `json:"read_mb_s"`
	WrittenMBs  float64 `json:"written_mb_s"`
	ReadMiBs    float64 `json:"read_mib_s"`
	WrittenMiBs float64 `json:"written_mib_s"`
}

// definitions say what each figure counts, in result.json.
var definitions = map[string]string{
	"elapsed_s":           "from the first file of the pool created to the last file deleted (Postmark's total time); making and removing the subdirectories is outside it, as in Postmark",
	"transactions_per_s":  "transactions / the transactions phase's seconds",
	"created_per_s":       "files created (pool and transactions) / elapsed_s",
	"created_alone_per_s": "files of the pool / the create phase's seconds (Postmark's 'creation alone')",
	"created_mixed_per_s": "files created in transactions / the transactions phase's seconds",
	"read_per_s":          "files read / the transactions phase's seconds",
	"appended_per_s":      "files appended to / the transactions phase's seconds (an append to a file already at size_max does nothing and is not counted, as in Postmark)",
	"deleted_per_s":       "files deleted (transactions and the end) / elapsed_s",
	"deleted_alone_per_s": "files deleted at the end / the delete phase's seconds (Postmark's 'deletion alone')",
	"deleted_mixed_per_s": "files deleted in transactions / the transactions phase's seconds",
	"read_mb_s":           "file data read / elapsed_s, in 10^6 bytes (read_mib_s: in 2^20 bytes, Postmark's 'megabytes')",
	"written_mb_s":        "file data written by creates and appends / elapsed_s, in 10^6 bytes (written_mib_s: in 2^20 bytes)",
	"ops":                 "latency of each operation from open to close (a delete: the unlink), in a histogram of 1% precision; per_second is over elapsed_s, and over the phase in phases[].ops",
	"estimate":            "the run's operations worked out before it started; peak_bytes and peak_files are the most its files held at once",
}

// rates computes the Rates from the counts and the phase times.
func (r *Result) rates() {
	var create, txns, del float64
	for _, p := range r.Phases {
		switch p.Name {
		case PoolPhase.String():
			create = p.Seconds
		case TransactionsPhase.String():
			txns = p.Seconds
		case DeletePhase.String():
			del = p.Seconds
		}
	}
	per := func(n int64, s float64) float64 {
		if s <= 0 {
			return 0
		}
		return float64(n) / s
	}
	c, t := r.Counts, r.ElapsedS
	r.Rates = Rates{
		TransactionsPerS: per(c.Transactions, txns),
		CreatedPerS:      per(c.Created, t), CreatedAlonePerS: per(c.CreatedAlone, create), CreatedMixedPerS: per(c.CreatedMixed, txns),
		ReadPerS: per(c.Read, txns), AppendedPerS: per(c.Appended, txns),
		DeletedPerS: per(c.Deleted, t), DeletedAlonePerS: per(c.DeletedAlone, del), DeletedMixedPerS: per(c.DeletedMixed, txns),
		ReadMBs: per(c.BytesRead, t*1e6), WrittenMBs: per(c.BytesWritten, t*1e6),
		ReadMiBs: per(c.BytesRead, t*(1<<20)), WrittenMiBs: per(c.BytesWritten, t*(1<<20)),
	}
}
