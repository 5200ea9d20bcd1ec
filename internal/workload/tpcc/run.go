package tpcc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/result"
	"tierbench/internal/verdict"
	"tierbench/internal/workload/vuser"
)

// RunConfig describes `tpcc run`: the plan of every run, and TPC-C's own settings.
type RunConfig struct {
	vuser.Plan
	// Warehouses is the population's size; 0 counts the WAREHOUSE table.
	Warehouses int
	Think      bool
	Mix        Mix
	// Load are the population's constants C (from load.json); zero when unknown.
	Load Constants
}

// Definitions say what the metrics count; they are written into every result.
var Definitions = vuser.Definitions(map[string]string{
	"nopm":        "New-Order transactions committed per minute of the measured window, counted by tierbench's users (HammerDB's NOPM; the 1% rolled back on purpose are not counted)",
	"nopm_server": "the change of SUM(D_NEXT_O_ID) over the measured window per minute: HammerDB's own way of computing NOPM, on the server",
	"tpm":         "transactions of all five types completed per minute of the measured window, counted by tierbench's users: commits plus the New-Orders rolled back on purpose (HammerDB reads TPM from the engine's commit + rollback counters, which count the same events on the server); failed transactions and retried attempts are not counted",
	"tps":         "tpm / 60",
	"qps":         "statements per second, BEGIN and COMMIT included",
})

// LevelResult is one concurrency level's measurements: what every workload reports
// (its fields appear at the top level in JSON), TPS as TPM / 60, and TPC-C's own.
type LevelResult struct {
	vuser.LevelReport
	NOPM       float64 `json:"nopm"`
	NOPMServer float64 `json:"nopm_server"`
	TPM        float64 `json:"tpm"`
}

// Result is result.json of `tpcc run`: what every run reports (vuser.RunResult; the
// headline level is the one with the highest NOPM), TPC-C's own headline numbers, and
// each level's result.
type Result struct {
	vuser.RunResult
	Spec       string `json:"spec"`
	Warehouses int    `json:"warehouses"`
	ThinkTimes bool   `json:"keying_and_think_times"`
	Mix        Mix    `json:"mix"`
	// NOPM, NOPMServer and TPM are the headline level's.
	NOPM       float64       `json:"nopm"`
	NOPMServer float64       `json:"nopm_server"`
	TPM        float64       `json:"tpm"`
	Levels     []LevelResult `json:"levels"`
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
func Run(ctx context.Context, e engine.Engine, cfg RunConfig) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("tpcc: %w", err)
	}
	if cfg.Warehouses == 0 {
		if err := e.DB().QueryRowContext(ctx, "SELECT COUNT(*) FROM warehouse").Scan(&cfg.Warehouses); err != nil {
			return nil, fmt.Errorf("tpcc: no TPC-C database here (run `tierbench tpcc load` first): %w", err)
		}
		if cfg.Warehouses == 0 {
			return nil, fmt.Errorf("tpcc: the WAREHOUSE table is empty: run `tierbench tpcc load` first")
		}
	}
	if cfg.Mix == (Mix{}) {
		cfg.Mix = MixDefault
	}
	info, err := e.Info(ctx)
	if err != nil {
		return nil, err
	}
	wl, err := NewTransactions(e, TransactionsConfig{Warehouses: cfg.Warehouses, Seed: cfg.Seed, Mix: cfg.Mix, Think: cfg.Think, Load: cfg.Load})
	if err != nil {
		return nil, err
	}
	jf, err := os.Create(filepath.Join(cfg.OutDir, IntervalsFile))
	if err != nil {
		return nil, fmt.Errorf("tpcc: %w", err)
	}
	defer jf.Close()
	jl := metrics.NewJSONLines(jf)

	res := &Result{
		RunResult: vuser.NewRunResult(meta.Name, info, cfg.Plan, Definitions),
		Spec:      "TPC-C revision 5.11 (not audited; see package tpcc)", Warehouses: cfg.Warehouses,
		ThinkTimes: cfg.Think, Mix: cfg.Mix,
	}
	return res, cfg.RunLevels(&res.RunResult, res, jl, func(users int) (result.Status, error) {
		lvl, err := runLevel(ctx, e, wl, cfg, users, jl)
		if lvl == nil {
			return "", err
		}
		res.Levels = append(res.Levels, *lvl)
		return lvl.Status, err
	}, res.summarise)
}

// summarise makes the level with the highest NOPM the headline.
func (r *Result) summarise() {
	best := -1
	levels := make([]vuser.LevelReport, len(r.Levels))
	for i, l := range r.Levels {
		levels[i] = l.LevelReport
		if best < 0 || l.NOPM > r.Levels[best].NOPM {
			best = i
		}
	}
	if best >= 0 {
		b := r.Levels[best]
		r.Headline(b.LevelReport, levels)
		r.NOPM, r.NOPMServer, r.TPM = b.NOPM, b.NOPMServer, b.TPM
	}
}

// runLevel runs one concurrency level.
func runLevel(ctx context.Context, e engine.Engine, wl *Transactions, cfg RunConfig, users int, jl *metrics.JSONLines) (*LevelResult, error) {
	// HammerDB's NOPM: SUM(D_NEXT_O_ID) read at both ends of the window, over the time
	// between the two reads. Each read is dated at the middle of its round trip: on a
	// busy server the query may wait for locks, and dating it at its end would stretch
	// the window by that wait.
	var nextStart, nextEnd int64
	var readStart, readEnd time.Time
	var serverErr error
	window := func(ctx context.Context, start bool) error {
		var s int64
		sent := time.Now()
		if err := e.DB().QueryRowContext(ctx, "SELECT SUM(d_next_o_id) FROM district").Scan(&s); err != nil {
			serverErr = err
			return nil // the client-side numbers stand without it
		}
		at := sent.Add(time.Since(sent) / 2)
		if start {
			nextStart, readStart = s, at
		} else {
			nextEnd, readEnd = s, at
		}
		return nil
	}
	rc := cfg.Level(users, jl)
	if mark := rc.Window; mark != nil {
		rc.Window = func(ctx context.Context, start bool) error {
			mark(ctx, start)
			return window(ctx, start)
		}
	} else {
		rc.Window = window
	}
	sum, err := vuser.Run(ctx, wl, rc)
	if sum == nil {
		return nil, err
	}
	m := sum.Measured
	secs := m.Duration().Seconds()
	lvl := &LevelResult{LevelReport: vuser.NewLevelReport(sum, TxnNames)}
	perMin := func(n float64) float64 {
		if secs <= 0 {
			return 0
		}
		return round(n * 60 / secs)
	}
	no := m.Ops[NewOrder]
	lvl.NOPM = perMin(float64(no.Hist.Count() - no.Rollbacks))
	lvl.TPM = perMin(float64(m.Count("")))
	lvl.TPS = round(lvl.TPM / 60)
	if nextStart > 0 && nextEnd > 0 && serverErr == nil {
		if d := readEnd.Sub(readStart).Seconds(); d > 0 {
			lvl.NOPMServer = round(float64(nextEnd-nextStart) * 60 / d)
		}
	}
	return lvl, err
}

func round(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }

// VerdictWindows are the levels' windows (verdict.Subject).
func (r *Result) VerdictWindows() ([]verdict.Window, int) {
	levels := make([]vuser.LevelReport, len(r.Levels))
	for i, l := range r.Levels {
		levels[i] = l.LevelReport
	}
	return r.LevelWindows(levels)
}
