package oltp

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/result"
	"tierbench/internal/verdict"
	"tierbench/internal/workload/vuser"
)

// RunConfig describes `oltp run`: the plan of every run, and the think time.
type RunConfig struct {
	vuser.Plan
	// Think is the pause after each transaction (closed loop).
	Think time.Duration
}

// Definitions say what the metrics count; they are written into every result.
var Definitions = vuser.Definitions(map[string]string{
	"tps": "transactions completed per second of the measured window: commits, plus rollbacks the mix asks for (on_empty: rollback); failed transactions and retried attempts are not counted",
	"qps": "statements sent per second, BEGIN and COMMIT included (a one-statement transaction runs alone, in autocommit)",
})

// Result is result.json of `oltp run`: what every run reports (vuser.RunResult; the
// headline level is the one with the highest TPS), the mix, and each level's report.
type Result struct {
	vuser.RunResult
	Mix       string              `json:"mix"`
	MixFile   string              `json:"mix_file"`
	MixSHA256 string              `json:"mix_sha256"`
	ThinkS    float64             `json:"think_s"`
	Weights   map[string]float64  `json:"weights"`
	Levels    []vuser.LevelReport `json:"levels"`
}

// ResultFile is the name of the run's result file, IntervalsFile of the intervals Run
// writes in OutDir.
const (
	ResultFile    = vuser.ResultFile
	IntervalsFile = vuser.IntervalsFile
)

// Run runs every concurrency level and saves the result after each (Plan.Save), so
// that an interrupted or failed run keeps what it measured. It returns the result
// also with an error.
func Run(ctx context.Context, e engine.Engine, m *Mix, cfg RunConfig) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("mix: %w", err)
	}
	if cfg.Think < 0 {
		return nil, fmt.Errorf("mix: think time %s: give 0 or more", cfg.Think)
	}
	wl, err := NewTransactions(ctx, e, m, TransactionsConfig{Seed: cfg.Seed, Think: cfg.Think})
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

	defs := Definitions
	if wl.gates != nil {
		defs = maps.Clone(Definitions)
		defs["app_waits"] = vuser.AppWaitDefinition
	}
	res := &Result{
		RunResult: vuser.NewRunResult(meta.Name, info, cfg.Plan, defs),
		Mix:       m.Name, MixFile: m.File, MixSHA256: m.SHA256, ThinkS: cfg.Think.Seconds(), Weights: map[string]float64{},
	}
	for _, t := range m.Transactions {
		res.Weights[t.Name] = t.Weight
	}
	return res, cfg.RunLevels(&res.RunResult, res, jl, func(users int) (result.Status, error) {
		sum, err := vuser.Run(ctx, wl, cfg.Level(users, jl))
		if sum == nil {
			return "", err
		}
		res.Levels = append(res.Levels, vuser.NewLevelReport(sum, wl.Ops()))
		return sum.Status, err
	}, func() {
		if b := vuser.Best(res.Levels); b >= 0 {
			res.Headline(res.Levels[b], res.Levels)
		}
	})
}

// WriteSummary prints a run's result for people: first, for a run that is not ok,
// why (vuser.WriteStatus); then the headline numbers, one row per transaction type, the
// first error of each type that failed and, for a sweep, the table of levels.
func WriteSummary(w io.Writer, r *Result, order []string) {
	vuser.WriteStatus(w, &r.RunResult)
	fmt.Fprintf(w, "mix %s on %s %s (%s), %s loop, status %s\n", r.Mix, r.Engine.Name, r.Engine.Version, r.Engine.Describe(), r.Loop, r.Status)
	fmt.Fprintf(w, "users %d: TPS %.1f  QPS %.1f\n", r.Users, r.TPS, r.QPS)
	metrics.WriteIOLine(w, r.IO, r.IOError)
	vuser.WriteClientCPULine(w, r.ClientCPU, r.Engine.Mode == engine.Embedded)
	metrics.WriteOpTable(w, "transaction", order, r.Transactions)
	for _, l := range r.Levels {
		if l.Users == r.Users {
			writeAppWaits(w, l, order)
		}
	}
	vuser.WriteFirstErrors(w, order, r.FirstErrors)
	if len(r.Sweep) > 1 {
		fmt.Fprintln(w, "\nconcurrency sweep (saturation: the fewest users reaching 95% of the best throughput)")
		metrics.WriteSweepTable(w, r.Sweep)
	}
	r.Storage.WriteSummary(w)
}

// VerdictWindows are the levels' windows (verdict.Subject).
func (r *Result) VerdictWindows() ([]verdict.Window, int) { return r.LevelWindows(r.Levels) }

// writeAppWaits prints what the level's users waited for in the application: each
// gate's share of their time, then each transaction type's mean waits.
func writeAppWaits(w io.Writer, l vuser.LevelReport, order []string) {
	if len(l.AppWaits) == 0 {
		return
	}
	var parts []string
	for _, a := range l.AppWaits {
		what := "critical section " + a.Name
		if a.Kind == "pool" {
			what = "the pool"
		}
		parts = append(parts, fmt.Sprintf("%s (%d) %.1f%% of their time (%.2f users waiting)", what, a.Holders, a.SharePct, a.Waiting))
	}
	fmt.Fprintf(w, "users waited in the application for %s\n", strings.Join(parts, ", "))
	for _, op := range order {
		t, ok := l.Transactions[op]
		if !ok || len(t.Waits) == 0 {
			continue
		}
		var ws []string
		for _, a := range l.AppWaits {
			if x := t.Waits[a.Name]; x.MeanMs > 0 {
				ws = append(ws, fmt.Sprintf("%s %.2f ms", a.Name, x.MeanMs))
			}
		}
		if len(ws) > 0 {
			fmt.Fprintf(w, "  %s waited (mean a transaction): %s\n", op, strings.Join(ws, ", "))
		}
	}
}
