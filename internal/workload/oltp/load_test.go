package oltp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"tierbench/internal/engine"
	_ "tierbench/internal/engine/sqlite"
	"tierbench/internal/metrics"
	"tierbench/internal/progress"
	"tierbench/internal/workload/vuser"
)

// saveIn does with a run's result what the lifecycle's Checkpoint does: it writes it
// to dir/result.json atomically.
func saveIn(dir string) func(any) error {
	return func(res any) error { return metrics.WriteJSONFile(filepath.Join(dir, ResultFile), res) }
}

func openSQLite(t *testing.T) engine.Engine { return openSQLiteB(t) }

func openSQLiteB(t testing.TB) engine.Engine {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Config{Name: "sqlite", Dir: t.TempDir(),
		Settings: map[string]string{"synchronous": "OFF"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func mustOpen(t *testing.T, name string) *Mix {
	t.Helper()
	m, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// loadGenerators are the generators Load fills table's columns with.
func loadGenerators(t *testing.T, m *Mix, table string, seed int64) []generator {
	t.Helper()
	ev := env{seed: seed, load: true, keys: func(table, _ string) (int64, error) { return m.Table(table).RowsAt(m.Scale), nil }}
	var gens []generator
	for _, c := range m.Table(table).Columns {
		g, err := newGenerator(c.Value, ev)
		if err != nil {
			t.Fatal(err)
		}
		gens = append(gens, g)
	}
	return gens
}

// chunkBytes generates one chunk of a table as Load would send it.
func chunkBytes(t *testing.T, m *Mix, table string, n int, seed int64) []byte {
	t.Helper()
	tbl := m.Table(table)
	gens := loadGenerators(t, m, table, seed)
	rows := tbl.RowsAt(m.Scale)
	first := int64(n)*chunkRows + 1
	var buf bytes.Buffer
	if err := writeChunk(&buf, chunk{table: tbl, n: n, first: first, last: min(rows, first+chunkRows-1)}, gens, seed, progress.Start(nil, "", "", 0)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestPopulationDeterministic(t *testing.T) {
	m := mustOpen(t, "point-select")
	a := chunkBytes(t, m, "sbtest1", 3, 42)
	b := chunkBytes(t, m, "sbtest1", 3, 42)
	if !bytes.Equal(a, b) {
		t.Fatal("the same chunk and seed gave different data")
	}
	if bytes.Equal(a, chunkBytes(t, m, "sbtest1", 3, 43)) {
		t.Fatal("another seed gave the same data")
	}
	lines := strings.Split(strings.TrimSuffix(string(a), "\n"), "\n")
	if len(lines) != chunkRows {
		t.Fatalf("chunk has %d rows, want %d", len(lines), chunkRows)
	}
	f := strings.Split(lines[0], "|")
	if f[0] != "300001" || len(f[2]) != 119 || len(f[3]) != 59 || f[4] != "" {
		t.Errorf("first row of chunk 3: %q", lines[0])
	}
	for _, l := range lines {
		if strings.ContainsAny(l, "\\\r") || strings.Count(l, "|") != 4 {
			t.Fatalf("malformed row %q", l)
		}
	}
}

// TestPopulationFingerprint pins the generated data: a change of any generator shows
// here. Refresh the hashes only for a change meant to alter the data.
func TestPopulationFingerprint(t *testing.T) {
	for _, tc := range []struct {
		mix, table string
		want       string
	}{
		{"point-select", "sbtest1", "b94996844edf0aa6"},
		{"policy", "policy", "c5e464b4a60cac04"},
		{"ecommerce", "order_line", "ee9d8f49fd9cf015"},
		{"bbs", "thread", "00e4e5523735e0d0"},
	} {
		sum := sha256.Sum256(chunkBytes(t, mustOpen(t, tc.mix), tc.table, 0, 1))
		got := hex.EncodeToString(sum[:8])
		if got != tc.want {
			t.Errorf("%s.%s chunk 0 seed 1: fingerprint %s, want %s", tc.mix, tc.table, got, tc.want)
		}
	}
}

func TestLoadRowCounts(t *testing.T) {
	e := openSQLite(t)
	m := mustOpen(t, "testdata/tiny.yaml")
	info, err := Load(context.Background(), e, m, LoadConfig{Scale: 2.5, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows["kv"] != 2500 || info.Scale != 2.5 {
		t.Errorf("load info %+v", info)
	}
	var n, groups, maxPos, minRef, maxRef int64
	var minDay, maxDay string
	err = e.DB().QueryRow("SELECT COUNT(*), COUNT(DISTINCT grp), MAX(pos), MIN(ref), MAX(ref), MIN(day), MAX(day) FROM kv").
		Scan(&n, &groups, &maxPos, &minRef, &maxRef, &minDay, &maxDay)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2500 || groups != 250 || maxPos != 10 || minRef != 1 || maxRef > 2500 || minDay < "2024-01-01" || maxDay > "2024-12-31" {
		t.Errorf("rows %d groups %d max pos %d ref %d..%d days %s..%s", n, groups, maxPos, minRef, maxRef, minDay, maxDay)
	}
	// A second load replaces the tables: the same seed gives the same rows.
	var before string
	e.DB().QueryRow("SELECT GROUP_CONCAT(v || price || tag, ',') FROM (SELECT * FROM kv ORDER BY id LIMIT 50)").Scan(&before)
	if _, err := Load(context.Background(), e, m, LoadConfig{Scale: 2.5, Seed: 9}); err != nil {
		t.Fatal(err)
	}
	var after string
	e.DB().QueryRow("SELECT GROUP_CONCAT(v || price || tag, ',') FROM (SELECT * FROM kv ORDER BY id LIMIT 50)").Scan(&after)
	if before == "" || before != after {
		t.Errorf("reload differs:\n%s\n%s", before, after)
	}
}

// loadAndRun loads m at scale and runs users for a few seconds; it checks that no
// transaction failed and that each type's share is within tolerance of its weight.
func loadAndRun(t *testing.T, e engine.Engine, m *Mix, scale float64, users int, d time.Duration) *Result {
	t.Helper()
	ctx := context.Background()
	start := time.Now()
	info, err := Load(ctx, e, m, LoadConfig{Scale: scale, Seed: 1})
	if err != nil {
		t.Fatalf("load %s: %v", m.Name, err)
	}
	t.Logf("%s: loaded %s at scale %g in %v: %v", e.Dialect().Name, m.Name, scale, time.Since(start).Round(time.Millisecond), info.Rows)
	out := t.TempDir()
	var lines bytes.Buffer
	res, err := Run(ctx, e, m, RunConfig{Plan: vuser.Plan{Users: []int{users}, Ramp: 500 * time.Millisecond, Duration: d, Interval: time.Second, Seed: 1, OutDir: out, Checkpoint: saveIn(out), Lines: &lines}})
	if err != nil {
		t.Fatalf("run %s: %v\n%s", m.Name, err, lines.String())
	}
	t.Logf("%s %s, %d users: tps %.0f qps %.0f", e.Dialect().Name, m.Name, users, res.TPS, res.QPS)
	var total, weights float64
	for _, tx := range m.Transactions {
		total += float64(res.Transactions[tx.Name].Count)
		weights += tx.Weight
	}
	if total < 100 {
		t.Fatalf("%s: only %v transactions", m.Name, total)
	}
	for _, tx := range m.Transactions {
		r := res.Transactions[tx.Name]
		if r.Errors > 0 {
			t.Errorf("%s %s: %d errors, first: %s", m.Name, tx.Name, r.Errors, res.FirstErrors[tx.Name])
		}
		p := tx.Weight / weights
		got := float64(r.Count) / total
		if tol := 5*math.Sqrt(p*(1-p)/total) + 0.01; math.Abs(got-p) > tol {
			t.Errorf("%s %s: share %.3f, weight says %.3f", m.Name, tx.Name, got, p)
		}
	}
	data, err := os.ReadFile(filepath.Join(out, ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"tps", "qps", "transactions", "mix", "mix_sha256", "engine", "levels"} {
		if _, ok := back[k]; !ok {
			t.Errorf("result.json has no %q", k)
		}
	}
	return res
}

func TestBundledMixesOnSQLite(t *testing.T) {
	for _, name := range Bundled() {
		t.Run(name, func(t *testing.T) {
			e := openSQLite(t)
			// ecommerce-images holds 50 GB of images at scale 1: 0.05 would be 2.5 GB,
			// so it loads 100 products and their images (50 MB) instead.
			scale := 0.05
			if name == "ecommerce-images" {
				scale = 0.001
			}
			loadAndRun(t, e, mustOpen(t, name), scale, 2, 2*time.Second)
		})
	}
}

func TestSweepOnSQLite(t *testing.T) {
	e := openSQLite(t)
	m := mustOpen(t, "testdata/tiny.yaml")
	if _, err := Load(context.Background(), e, m, LoadConfig{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	// The result is handed over after each level, with the levels measured so far.
	var saved []int
	save := func(r any) error { saved = append(saved, len(r.(*Result).Levels)); return nil }
	res, err := Run(context.Background(), e, m, RunConfig{Plan: vuser.Plan{Users: []int{1, 2}, Duration: time.Second, Interval: time.Second, OutDir: out, Checkpoint: save}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Levels) != 2 || len(res.Sweep) != 2 || res.Levels[1].Users != 2 {
		t.Fatalf("levels %+v sweep %+v", res.Levels, res.Sweep)
	}
	if !slices.Equal(saved, []int{1, 2}) {
		t.Errorf("checkpoints held %v levels, want 1 then 2", saved)
	}
	marked := 0
	for _, l := range res.Sweep {
		if l.Saturated {
			marked++
		}
	}
	if marked != 1 {
		t.Errorf("%d levels marked as the saturation point", marked)
	}
	// move copies rows with new keys after the largest: no duplicate keys, ever.
	if r := res.Levels[0].Transactions["move"]; r.Count == 0 || r.Errors > 0 {
		t.Errorf("move: %+v", r)
	}
	var summary bytes.Buffer
	WriteSummary(&summary, res, m.TxnNames())
	if !strings.Contains(summary.String(), "concurrency sweep") || !strings.Contains(summary.String(), "* saturation") {
		t.Errorf("summary:\n%s", summary.String())
	}
}

// TestChunksStream: a table's chunks are made as loaders draw them; a list of the
// chunks of 10^12 rows (rows: 1e12) took 10^7 entries before a row was
// loaded. Drawing the first few of 2^53 rows allocates next to nothing.
func TestChunksStream(t *testing.T) {
	m, err := Parse("huge.yaml", []byte(strings.Replace(string(mustReadFile(t, "testdata/tiny.yaml")), "rows: 1000\n", "rows: 9007199254740992\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var got []chunk
	for c := range chunks(m, 1) {
		got = append(got, c)
		if len(got) == 3 {
			break
		}
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("drawing 3 chunks allocated %d bytes", grew)
	}
	if got[2].first != 2*chunkRows+1 || got[2].last != 3*chunkRows || got[2].n != 2 {
		t.Errorf("third chunk %+v, want rows %d-%d", got[2], 2*chunkRows+1, 3*chunkRows)
	}
	// The last chunk of a table ends at its last row.
	var last chunk
	for c := range chunks(mustOpen(t, "testdata/tiny.yaml"), 250.5) { // 250,500 rows
		last = c
	}
	if last.n != 2 || last.first != 200_001 || last.last != 250_500 {
		t.Errorf("last chunk %+v, want the third, rows 200001-250500", last)
	}
}

// TestHugeLoadStops: a load of 2^53 rows (with --ignore-limits) starts at once and
// stops at Ctrl-C with context.Canceled.
func TestHugeLoadStops(t *testing.T) {
	e := openSQLite(t)
	m := mustOpen(t, "testdata/tiny.yaml")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Load(ctx, e, m, LoadConfig{Scale: MaxRows / 1000, Seed: 1})
		done <- err
	}()
	time.Sleep(500 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Load returned %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Load did not stop within a minute of the cancel")
	}
}
