package vuser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/monitor"
	"tierbench/internal/result"
	"tierbench/internal/workload"
)

// ResultFile and IntervalsFile are the names of the files a run writes in its output
// directory.
const (
	ResultFile    = result.File
	IntervalsFile = "intervals.jsonl"
)

// Plan is how a run of virtual users goes, whatever the workload: its levels, their
// ramp-up and window, the loop, the reports, and where the results go.
type Plan struct {
	// Users are the concurrency levels: one level is a plain run, more are a sweep,
	// each level with its own ramp-up and window.
	Users    []int
	Ramp     time.Duration
	Duration time.Duration
	// Rate > 0 runs open-loop at Rate transactions per second in total.
	Rate     float64
	Interval time.Duration
	Seed     int64
	// MaxErrorShare is Config.MaxErrorShare of every level.
	MaxErrorShare float64
	// OutDir receives intervals.jsonl.
	OutDir string
	// Checkpoint, if set, is handed the result after each level (Save), so that an
	// interrupted or failed sweep keeps what it measured (workload.Env.Checkpoint
	// writes it as result.json); nil keeps nothing.
	Checkpoint func(result any) error
	// Lines receives the per-interval lines (nil: none).
	Lines io.Writer
	// IO, if set, reads I/O counters for each interval's and each level's MB/s
	// (Config.IO).
	IO func(ctx context.Context) (metrics.IOSample, error)
	// Mark, if set, is told when each level's measured window starts and ends, by
	// the level's label ("8 users"): the run lifecycle's monitors and energy windows.
	Mark func(label string, start bool)
	// Observer, if set, sees every level's interval records (Config.Observer).
	Observer metrics.Observer
}

// Validate checks the plan before its first level runs.
func (p Plan) Validate() error {
	return Config{Ramp: p.Ramp, Duration: p.Duration, Rate: p.Rate, MaxErrorShare: p.MaxErrorShare}.ValidateLevels(p.Users)
}

// Level is the runner's configuration for the level of users users; its interval
// records go to jl.
func (p Plan) Level(users int, jl *metrics.JSONLines) Config {
	c := Config{Users: users, Ramp: p.Ramp, Duration: p.Duration, Rate: p.Rate, Interval: p.Interval,
		Lines: p.Lines, JSON: jl, IO: p.IO, Observer: p.Observer, MaxErrorShare: p.MaxErrorShare}
	if p.Mark != nil {
		label := monitor.LevelLabel(users)
		c.Window = func(_ context.Context, start bool) error { p.Mark(label, start); return nil }
	}
	return c
}

// Save hands result, a workload's result as it stands, to Checkpoint.
func (p Plan) Save(result any) error {
	if p.Checkpoint == nil {
		return nil
	}
	return p.Checkpoint(result)
}

// Sweep runs the plan's levels in order: level(users) runs and records one level;
// after each, save saves the result (Save), so an interrupted or failed sweep keeps
// what it measured. With more than one level, Lines (when set) gets a header before
// each. The first error, of a level or of save, ends the sweep and is returned.
func (p Plan) Sweep(level func(users int) error, save func() error) error {
	for _, u := range p.Users {
		if p.Lines != nil && len(p.Users) > 1 {
			fmt.Fprintf(p.Lines, "--- %d users: %s ramp-up, %s measured\n", u, p.Ramp, p.Duration)
		}
		err := level(u)
		if werr := save(); err == nil {
			err = werr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// RunResult is what the result.json of every run of virtual users holds (`oltp run`,
// `tpcc run`); each workload's result embeds it, so its fields appear at the top
// level, and adds its own.
type RunResult struct {
	Benchmark string        `json:"benchmark"`
	Status    result.Status `json:"status"`
	Error     string        `json:"error,omitempty"`
	Started   time.Time     `json:"started"`
	Engine    engine.Info   `json:"engine"`
	RampS     float64       `json:"ramp_s"`
	DurationS float64       `json:"duration_s"`
	Loop      string        `json:"loop"`
	Rate      float64       `json:"rate,omitempty"`
	Seed      int64         `json:"seed"`
	// MaxErrorShare is the share of failed transactions above which a level is failed
	// (see Definitions["status"]).
	MaxErrorShare float64           `json:"max_error_share"`
	Definitions   map[string]string `json:"definitions"`
	// The headline numbers are those of the workload's best level (the only level of a
	// plain run); Headline sets them.
	Users        int                         `json:"users"`
	TPS          float64                     `json:"tps"`
	QPS          float64                     `json:"qps"`
	Transactions map[string]metrics.OpReport `json:"transactions"`
	// FirstErrors holds the first error of each transaction type that failed in that
	// level's window (as Transactions[type].FirstError: a type with errors has one, a
	// type without has none).
	FirstErrors map[string]string `json:"first_errors,omitempty"`
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
	// IntervalsError says why IntervalsFile lacks the intervals after its first
	// IntervalsWritten lines (a full disk); empty when it holds them all.
	IntervalsError   string `json:"intervals_error,omitempty"`
	IntervalsWritten int    `json:"intervals_written,omitempty"`
	// IntervalsNull names the numbers IntervalsFile holds as null, since JSON cannot
	// hold them (NaN, an infinity), by line and JSON path: "line 3 latency.p99_ms (NaN)".
	IntervalsNull []string `json:"intervals_null,omitempty"`
	// Sections are what the run lifecycle attaches: the storage section says where
	// the files were and what the devices did and used over the whole command (engine
	// start to stop); monitoring and the verdict cover each level's window.
	result.Sections
}

// NewRunResult begins the result of a run of benchmark on the engine info describes:
// status ok, started now, a closed loop unless p.Rate asks for an open one.
func NewRunResult(benchmark string, info engine.Info, p Plan, definitions map[string]string) RunResult {
	r := RunResult{
		Benchmark: benchmark, Status: result.StatusOK, Started: time.Now().UTC(), Engine: info,
		RampS: p.Ramp.Seconds(), DurationS: p.Duration.Seconds(), Loop: "closed", Rate: p.Rate, Seed: p.Seed,
		MaxErrorShare: p.MaxErrorShare, Definitions: definitions, IntervalsFile: IntervalsFile,
	}
	if p.Rate > 0 {
		r.Loop = "open"
	}
	return r
}

// LevelFailed records that a level ended with err: the status the level reached
// (failed when it measured nothing) and the cause.
func (r *RunResult) LevelFailed(status result.Status, err error) {
	if status == "" {
		status = result.StatusFailed
	}
	r.Status, r.Error = status, err.Error()
}

// TakeCause marks the run failed by cause, a death under it, ahead of what failed
// after (workload.CauseTaker).
func (r *RunResult) TakeCause(cause string) {
	r.Status, r.Error = result.StatusFailed, thenWhat(cause, r.Error)
}

// thenWhat is cause, then what followed from it.
func thenWhat(cause, then string) string {
	if then == "" || then == cause {
		return cause
	}
	return cause + "; then " + then
}

// Headline makes l's numbers the result's headline, and levels (when more than one)
// the sweep table.
func (r *RunResult) Headline(l LevelReport, levels []LevelReport) {
	r.Users, r.TPS, r.QPS, r.Transactions = l.Users, l.TPS, l.QPS, l.Transactions
	r.FirstErrors = nil
	for op, t := range l.Transactions {
		if t.FirstError != "" {
			if r.FirstErrors == nil {
				r.FirstErrors = map[string]string{}
			}
			r.FirstErrors[op] = t.FirstError
		}
	}
	r.IO, r.IOError, r.ClientCPU = l.IO, l.IOError, l.ClientCPU
	if len(levels) > 1 {
		r.Sweep = SweepTable(levels)
	}
}

// NoteIntervals records in r whether jl, the run's intervals file, lost lines after a
// failed write or holds numbers as null, and returns the error to report then (nil when
// every line was written whole): a number JSON cannot hold is named as result.json's
// would be (metrics.NonFiniteError).
func (r *RunResult) NoteIntervals(jl *metrics.JSONLines) error {
	var errs []error
	if nf := jl.NonFinite(); nf != nil {
		r.IntervalsNull = nf.Fields
		errs = append(errs, nf)
	}
	if err := jl.Err(); err != nil {
		r.IntervalsError, r.IntervalsWritten = err.Error(), jl.Lines()
		errs = append(errs, fmt.Errorf("%s holds the first %d intervals only: %w", r.IntervalsFile, jl.Lines(), err))
	}
	return errors.Join(errs...)
}

// Headline describes RunResult's headline metrics, TPS and QPS, each with what it
// counts in a workload's definitions (its Definitions["tps"] and ["qps"]), for the
// workload's registry entry.
func Headline(definitions map[string]string) []workload.MetricInfo {
	return []workload.MetricInfo{
		{Name: "tps", Title: "TPS", Unit: "transactions/s", Better: result.HigherIsBetter, What: definitions["tps"]},
		{Name: "qps", Title: "QPS", Unit: "statements/s", Better: result.HigherIsBetter, What: definitions["qps"]},
	}
}

// HeadlineMetrics are TPS and QPS of the headline level.
func (r *RunResult) HeadlineMetrics() []result.Metric {
	h := Headline(r.Definitions)
	return []result.Metric{h[0].Of(r.TPS), h[1].Of(r.QPS)}
}

// RunStatus is the run's status and why it is not ok.
func (r *RunResult) RunStatus() (result.Status, string) { return r.Status, r.Error }
