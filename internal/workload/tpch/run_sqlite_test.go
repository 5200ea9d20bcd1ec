package tpch

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRunInterrupted cancels the run in the middle of the power test, as Ctrl-C
// does: the run stops, keeps the load in result.json and says why; the next run
// skips the update set the interrupted one had claimed.
func TestRunInterrupted(t *testing.T) {
	eng := openSQLite(t)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := &testLog{t: t, hook: func(line string) {
		if strings.Contains(line, "power: Q9 ") {
			cancel()
		}
	}}
	start := time.Now()
	res, err := Run(ctx, eng, RunConfig{SF: e2eSF, Streams: 2, OutDir: out, Checkpoint: saveIn(out), Log: log})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: err %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("stopping took %s", d)
	}
	if res == nil || res.Failed == "" || res.Load == nil || res.Power == nil || res.Throughput != nil || res.Reportable {
		t.Fatalf("interrupted result: %+v", res)
	}
	if len(res.Power.Queries) < 3 || len(res.Power.Queries) >= 22 {
		t.Errorf("power test kept %d queries, want those before the interrupt", len(res.Power.Queries))
	}
	b, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var saved Result
	if err := json.Unmarshal(b, &saved); err != nil || saved.Failed == "" || saved.Load == nil || len(saved.Load.Rows) != 8 {
		t.Fatalf("result.json after the interrupt (%v): %s", err, b)
	}

	res2, err := Run(context.Background(), eng, RunConfig{SF: e2eSF, Streams: 2, SkipLoad: true, Log: &testLog{t: t}})
	if err != nil {
		t.Fatalf("run after the interrupt: %v", err)
	}
	if res2.Power.UpdateSet != 2 || res2.Throughput.Refresh[0].UpdateSet != 3 {
		t.Errorf("run after the interrupt used update sets %d and %d, want 2 and 3", res2.Power.UpdateSet, res2.Throughput.Refresh[0].UpdateSet)
	}
}

// TestRunValidateAgainst compares every answer with a second, empty SQLite
// database, which the run loads itself; then refuses a reference that has changed.
func TestRunValidateAgainst(t *testing.T) {
	eng, ref := openSQLite(t), openSQLite(t)
	cfg := RunConfig{SF: e2eSF, Streams: 2, ValidateAgainst: ref, Log: &testLog{t: t}}
	res, err := Run(context.Background(), eng, cfg)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	v := res.Validation
	if v == nil || !v.Passed || v.Checked != 22 || !strings.Contains(v.Against, "sqlite") || len(v.Failures) != 0 {
		t.Fatalf("validation %+v", v)
	}
	if got := count(t, ref, "SELECT COUNT(*) FROM lineitem"); got != e2eRows["lineitem"] {
		t.Errorf("reference LINEITEM holds %d rows, want %d", got, e2eRows["lineitem"])
	}
	// This database has now had update sets applied: validating it again must fail
	// loudly rather than compare different data.
	cfg.SkipLoad = true
	if _, err := Run(context.Background(), eng, cfg); err == nil || !strings.Contains(err.Error(), "update sets") {
		t.Errorf("validation on a refreshed database: %v", err)
	}
}

// TestRunValidateAgainstFindsDifferences uses a reference database that tierbench
// loaded and someone then changed: the comparison must report Q1.
func TestRunValidateAgainstFindsDifferences(t *testing.T) {
	ctx := context.Background()
	eng, ref := openSQLite(t), openSQLite(t)
	cfg := RunConfig{SF: e2eSF, Streams: 2, Log: &testLog{t: t}}
	rr := newRunner(ref, cfg)
	if err := rr.prepareLoad(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := rr.loadTest(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rr.recordLoad(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := ref.DB().Exec("UPDATE lineitem SET l_quantity = l_quantity + 1"); err != nil {
		t.Fatal(err)
	}
	cfg.ValidateAgainst = ref
	res, err := Run(ctx, eng, cfg)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	v := res.Validation
	if v == nil || v.Passed || !slices.ContainsFunc(v.Failures, func(s string) bool { return strings.HasPrefix(s, "Q1 ") }) {
		t.Fatalf("validation against a changed reference: %+v", v)
	}
	if res.Reportable {
		t.Error("a run with wrong answers is reportable")
	}
}

// TestRunAtScale runs the whole procedure at TIERBENCH_TPCH_SF (e.g. 0.1 or 1) on
// TIERBENCH_TPCH_ENGINE (sqlite, the default; postgres or mysql start a managed
// server) and logs the times; it is skipped unless TIERBENCH_TPCH_SF is set. With
// TIERBENCH_TPCH_VALIDATE=1 (and SF 1) it also checks the TPC's answers.
func TestRunAtScale(t *testing.T) {
	v := os.Getenv("TIERBENCH_TPCH_SF")
	if v == "" {
		t.Skip("set TIERBENCH_TPCH_SF to run at that scale factor")
	}
	sf, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("TIERBENCH_TPCH_SF=%q: %v", v, err)
	}
	open := openSQLite
	if name := os.Getenv("TIERBENCH_TPCH_ENGINE"); name != "" && name != "sqlite" {
		open = openManaged(name)
	}
	cfg := RunConfig{SF: sf, OutDir: t.TempDir(), Log: &testLog{t: t}, Progress: os.Stderr}
	if os.Getenv("TIERBENCH_TPCH_VALIDATE") != "" {
		cfg.Validate, cfg.UseDefaultParams = true, true
	}
	res, err := Run(context.Background(), open(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Validate && !res.Validation.Passed {
		t.Errorf("validation failed: %q", res.Validation.Failures)
	}
	var power float64
	for _, s := range res.Power.Queries {
		power += s
	}
	t.Logf("%s SF %g: load %.1fs %v; power queries %.1fs RF1 %.2fs RF2 %.2fs; throughput Ts %.1fs (%d streams); QphH %.1f",
		res.Engine.Name, sf, res.Load.Total, res.Load.Steps, power, res.Power.RF1, res.Power.RF2,
		res.Throughput.Seconds, res.Streams, res.Metrics.QphHAtSize)
	var sb strings.Builder
	Summary(&sb, res)
	t.Log("\n" + sb.String())
}
