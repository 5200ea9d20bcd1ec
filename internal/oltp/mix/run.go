package mix

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/oltp"
	"tierbench/internal/placement"
)

// RunConfig describes `oltp run`.
type RunConfig struct {
	// Users are the concurrency levels: one level is a plain run, more are a sweep,
	// each level with its own ramp-up and window.
	Users    []int
	Ramp     time.Duration
	Duration time.Duration
	// Rate > 0 runs open-loop at Rate transactions per second in total.
	Rate     float64
	Interval time.Duration
	// Think is the pause after each transaction (closed loop).
	Think time.Duration
	Seed  int64
	// OutDir receives result.json and intervals.jsonl.
	OutDir string
	// Lines receives the per-interval lines (nil: none).
	Lines io.Writer
	// IO, if set, reads I/O counters for each interval's and each level's MB/s
	// (oltp.Config.IO).
	IO func(ctx context.Context) (metrics.IOSample, error)
}

// Definitions say what the metrics count; they are written into every result.
var Definitions = map[string]string{
	"tps":        "transactions completed per second of the measured window: commits, plus rollbacks the mix asks for (on_empty: rollback); failed transactions and retried attempts are not counted",
	"qps":        "statements sent per second, BEGIN and COMMIT included (a one-statement transaction runs alone, in autocommit)",
	"io":         oltp.IODefinition,
	"client_cpu": oltp.ClientCPUDefinition,
}

// Result is result.json of `oltp run`.
type Result struct {
	Benchmark   string             `json:"benchmark"`
	Mix         string             `json:"mix"`
	MixFile     string             `json:"mix_file"`
	MixSHA256   string             `json:"mix_sha256"`
	Status      string             `json:"status"`
	Error       string             `json:"error,omitempty"`
	Started     time.Time          `json:"started"`
	Engine      engine.Info        `json:"engine"`
	RampS       float64            `json:"ramp_s"`
	DurationS   float64            `json:"duration_s"`
	Loop        string             `json:"loop"`
	Rate        float64            `json:"rate,omitempty"`
	ThinkS      float64            `json:"think_s"`
	Seed        int64              `json:"seed"`
	Weights     map[string]float64 `json:"weights"`
	Definitions map[string]string  `json:"definitions"`
	// The headline numbers are those of the level with the highest TPS (the only
	// level of a plain run).
	Users        int                         `json:"users"`
	TPS          float64                     `json:"tps"`
	QPS          float64                     `json:"qps"`
	Transactions map[string]metrics.OpReport `json:"transactions"`
	// IO is that level's I/O rates over its window (see Definitions["io"]).
	IO      *metrics.IORates `json:"io,omitempty"`
	IOError string           `json:"io_error,omitempty"`
	// ClientCPU is what tierbench itself spent over that level's window (see
	// Definitions["client_cpu"]).
	ClientCPU *oltp.ClientCPU `json:"client_cpu,omitempty"`
	// FirstErrors holds the first error of each transaction type that failed.
	FirstErrors map[string]string  `json:"first_errors,omitempty"`
	Levels      []oltp.LevelReport `json:"levels"`
	// Sweep has one row per level with the saturation point marked (sweeps only).
	Sweep         []metrics.Level `json:"sweep,omitempty"`
	IntervalsFile string          `json:"intervals_file"`
	// Storage says where the files were and what the devices did and used over the
	// run (only when files were placed on tiers).
	Storage *placement.Storage `json:"storage,omitempty"`
}

// WriteResult writes r to dir/result.json atomically.
func WriteResult(dir string, r *Result) error {
	return metrics.WriteJSONFile(filepath.Join(dir, ResultFile), r)
}

// ResultFile and IntervalsFile are the names of the files Run writes in OutDir.
const (
	ResultFile    = "result.json"
	IntervalsFile = "intervals.jsonl"
)

// Run runs every concurrency level and writes result.json after each, so that an
// interrupted or failed run keeps what it measured. It returns the result also with
// an error.
func Run(ctx context.Context, e engine.Engine, m *Mix, cfg RunConfig) (*Result, error) {
	if err := (oltp.Config{Ramp: cfg.Ramp, Duration: cfg.Duration, Rate: cfg.Rate}).ValidateLevels(cfg.Users); err != nil {
		return nil, fmt.Errorf("mix: %w", err)
	}
	if cfg.Think < 0 {
		return nil, fmt.Errorf("mix: think time %s: give 0 or more", cfg.Think)
	}
	wl, err := NewWorkload(ctx, e, m, WorkloadConfig{Seed: cfg.Seed, Think: cfg.Think})
	if err != nil {
		return nil, err
	}
	info, err := e.Info(ctx)
	if err != nil {
		return nil, err
	}
	jf, err := os.Create(filepath.Join(cfg.OutDir, IntervalsFile))
	if err != nil {
		return nil, fmt.Errorf("mix: %w", err)
	}
	defer jf.Close()
	jl := metrics.NewJSONLines(jf)

	res := &Result{
		Benchmark: "oltp-mix", Mix: m.Name, MixFile: m.File, MixSHA256: m.SHA256, Status: string(oltp.StatusOK),
		Started: time.Now().UTC(), Engine: info, RampS: cfg.Ramp.Seconds(), DurationS: cfg.Duration.Seconds(),
		Loop: "closed", Rate: cfg.Rate, ThinkS: cfg.Think.Seconds(), Seed: cfg.Seed, Weights: map[string]float64{},
		Definitions: Definitions, IntervalsFile: IntervalsFile,
	}
	for _, t := range m.Transactions {
		res.Weights[t.Name] = t.Weight
	}
	if cfg.Rate > 0 {
		res.Loop = "open"
	}
	runErr := oltp.Sweep(cfg.Users, cfg.Ramp, cfg.Duration, cfg.Lines, func(users int) error {
		sum, err := oltp.Run(ctx, wl, oltp.Config{
			Users: users, Ramp: cfg.Ramp, Duration: cfg.Duration, Rate: cfg.Rate, Interval: cfg.Interval,
			Lines: cfg.Lines, JSON: jl, IO: cfg.IO,
		})
		if sum != nil {
			res.Levels = append(res.Levels, oltp.NewLevelReport(sum, wl.Ops()))
		}
		if err != nil {
			res.Status = string(oltp.StatusFailed)
			if sum != nil {
				res.Status = string(sum.Status)
			}
			res.Error = err.Error()
		}
		res.summarise(wl)
		return err
	}, func() error { return WriteResult(cfg.OutDir, res) })
	return res, runErr
}

// summarise fills the headline numbers and the sweep table from the levels.
func (r *Result) summarise(wl *Workload) {
	if b := oltp.Best(r.Levels); b >= 0 {
		l := r.Levels[b]
		r.Users, r.TPS, r.QPS, r.Transactions = l.Users, l.TPS, l.QPS, l.Transactions
		r.IO, r.IOError, r.ClientCPU = l.IO, l.IOError, l.ClientCPU
	}
	if len(r.Levels) > 1 {
		r.Sweep = oltp.SweepTable(r.Levels)
	}
	if errs := wl.FirstErrors(); len(errs) > 0 {
		r.FirstErrors = errs
	}
}

// WriteSummary prints a run's result for people: the headline numbers, one row per
// transaction type, the first error of each type that failed and, for a sweep, the
// table of levels.
func WriteSummary(w io.Writer, r *Result, order []string) {
	fmt.Fprintf(w, "\nmix %s on %s %s (%s), %s loop, status %s\n", r.Mix, r.Engine.Name, r.Engine.Version, r.Engine.Describe(), r.Loop, r.Status)
	if r.Error != "" {
		fmt.Fprintf(w, "error: %s\n", r.Error)
	}
	fmt.Fprintf(w, "users %d: TPS %.1f  QPS %.1f\n", r.Users, r.TPS, r.QPS)
	metrics.WriteIOLine(w, r.IO, r.IOError)
	oltp.WriteClientCPULine(w, r.ClientCPU, r.Engine.Mode == engine.Embedded)
	metrics.WriteOpTable(w, "transaction", order, r.Transactions)
	for _, op := range order {
		if e, ok := r.FirstErrors[op]; ok {
			fmt.Fprintf(w, "first error of %s: %s\n", op, e)
		}
	}
	if len(r.Sweep) > 1 {
		fmt.Fprintln(w, "\nconcurrency sweep (saturation: the fewest users reaching 95% of the best throughput)")
		metrics.WriteSweepTable(w, r.Sweep)
	}
	placement.WriteSummary(w, r.Storage)
}
