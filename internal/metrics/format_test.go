package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"tierbench/internal/diskfull"
)

func ExampleIntervalLine() {
	start := time.Unix(0, 0)
	r := NewRegistry([]string{"new_order", "payment"}, start)
	h := r.NewHandle()
	for i := 1; i <= 10; i++ {
		h.Record("new_order", time.Duration(i)*time.Millisecond, Counts{Queries: 20})
		h.Record("payment", 2*time.Millisecond, Counts{Queries: 10})
	}
	h.Record("payment", 0, Counts{Errors: 1, Queries: 3})
	iv, _ := r.Tick(start.Add(10*time.Second), start)
	// Latencies are reported as the top of their HDR bucket (2 significant digits,
	// HdrHistogram's convention): 10 ms reads 10.05 ms.
	fmt.Println(IntervalLine(NewIntervalRecord(iv, "measure", 4)))
	fmt.Println(IntervalLine(NewIntervalRecord(iv, "ramp", 4)))
	// Output:
	// [   10s ] users: 4 tps: 2.00 qps: 30.30 err/s: 0.10 lat (ms) p50: 2.01 p95: 9.02 p99: 10.05 max: 10.05
	// [   10s ] (ramp) users: 4 tps: 2.00 qps: 30.30 err/s: 0.10 lat (ms) p50: 2.01 p95: 9.02 p99: 10.05 max: 10.05
}

func TestJSONLines(t *testing.T) {
	start := time.Unix(0, 0)
	r := NewRegistry([]string{"x"}, start)
	r.NewHandle().Record("x", time.Millisecond, Counts{Queries: 1})
	iv, _ := r.Tick(start.Add(time.Second), start)
	var b bytes.Buffer
	j := NewJSONLines(&b)
	for range 2 {
		if err := j.Write(NewIntervalRecord(iv, "measure", 1)); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"tps":1`) || !strings.Contains(lines[0], `"ops":{"x":{"count":1`) ||
		!strings.Contains(lines[0], `"time":"1970-01-01T00:00:01Z"`) {
		t.Errorf("JSON lines:\n%s", b.String())
	}
}

// TestJSONLinesNonFinite: an interval whose latency is NaN and whose TPS is +Inf is
// written whole, those numbers as null, and Write says which by line and JSON path;
// the lines around it are as they were. Before, json.Marshal failed and the whole line
// was lost without a word (the runner does not look at Write's error). Read back, the
// nulls are NaN, not 0.
func TestJSONLinesNonFinite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "intervals.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	j := NewJSONLines(f)
	good := IntervalRecord{Phase: "measure", Users: 2, TPS: 100, Latency: Latency{P50: 1.5}, Ops: map[string]OpReport{}}
	bad := good
	bad.TPS, bad.Latency.P99 = math.Inf(1), math.NaN()
	bad.Ops = map[string]OpReport{"x": {Count: 3, PerSecond: math.NaN()}}
	if err := j.Write(good); err != nil {
		t.Fatal(err)
	}
	err = j.Write(bad)
	var nf *NonFiniteError
	if !errors.As(err, &nf) || nf.File != path ||
		!slices.Equal(nf.Fields, []string{"line 2 tps (+Inf)", "line 2 latency.p99_ms (NaN)", "line 2 ops.x.per_second (NaN)"}) {
		t.Fatalf("Write of NaN and +Inf: %v", err)
	}
	if err := j.Write(good); err != nil || j.Err() != nil || j.Lines() != 3 {
		t.Fatalf("the file did not go on: %v, %v, %d lines", err, j.Err(), j.Lines())
	}
	f.Close()
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], `"tps":null`) || !strings.Contains(lines[1], `"p99_ms":null`) ||
		!strings.Contains(lines[1], `"p50_ms":1.5`) || !strings.Contains(lines[1], `"per_second":null`) || lines[0] != lines[2] {
		t.Errorf("file:\n%s", data)
	}
	var read []IntervalRecord
	if _, err := ReadJSONLines(path, func(_ int, r *IntervalRecord) error { read = append(read, *r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(read) != 3 || !math.IsNaN(read[1].TPS) || !math.IsNaN(read[1].Latency.P99) || read[1].Latency.P50 != 1.5 ||
		!math.IsNaN(read[1].Ops["x"].PerSecond) || read[1].Ops["x"].Count != 3 || read[0].TPS != 100 || read[0].Latency.P99 != 0 {
		t.Errorf("read back: %+v", read)
	}
}

func TestMarkSaturation(t *testing.T) {
	for _, tc := range []struct {
		name string
		tps  []float64
		want int
	}{
		// Throughput climbs, flattens at 8 users (980 >= 95% of 1000), peaks at 16.
		{"knee", []float64{100, 190, 360, 650, 980, 1000, 940}, 4},
		{"still climbing", []float64{100, 200, 400}, 2},
		{"flat from the start", []float64{500, 510, 505}, 0},
		{"nothing", []float64{0, 0}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			levels := make([]Level, len(tc.tps))
			for i, v := range tc.tps {
				levels[i] = Level{Users: 1 << i, TPS: v}
			}
			if got := MarkSaturation(levels); got != tc.want {
				t.Errorf("saturation at %d, want %d", got, tc.want)
			}
			for i, l := range levels {
				if l.Saturated != (i == tc.want) {
					t.Errorf("level %d marked %v", i, l.Saturated)
				}
			}
		})
	}
	levels := []Level{{Users: 1, TPS: 100, P95: 1, P99: 2}, {Users: 2, TPS: 199, P95: 2, P99: 4}}
	MarkSaturation(levels)
	var b bytes.Buffer
	WriteSweepTable(&b, levels)
	if !strings.Contains(b.String(), "* saturation") || strings.Count(b.String(), "\n") != 3 {
		t.Errorf("table:\n%s", b.String())
	}
}

// shortWriter takes the first limit bytes and fails after them, as a disk that fills.
type shortWriter struct {
	bytes.Buffer
	limit int
}

func (w *shortWriter) Write(p []byte) (int, error) {
	room := w.limit - w.Len()
	if len(p) <= room {
		return w.Buffer.Write(p)
	}
	w.Buffer.Write(p[:room])
	return room, syscall.ENOSPC
}

func (w *shortWriter) Truncate(n int64) error { w.Buffer.Truncate(int(n)); return nil }

// TestJSONLinesFullDisk: the write that fails leaves no part of its line, later
// writes are skipped, and Err and Lines say what the file holds.
func TestJSONLinesFullDisk(t *testing.T) {
	w := &shortWriter{limit: 25}
	j := NewJSONLines(w)
	for i := range 5 {
		err := j.Write(map[string]int{"n": i})
		if (i < 3) != (err == nil) {
			t.Errorf("write %d: %v", i, err)
		}
	}
	if got := w.String(); got != "{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n" {
		t.Errorf("file holds %q, want three whole lines", got)
	}
	if j.Lines() != 3 || !errors.Is(j.Err(), syscall.ENOSPC) {
		t.Errorf("Lines %d, Err %v", j.Lines(), j.Err())
	}
}

// TestJSONLinesRealFullDisk: the same on a tmpfs that fills, through *os.File.
func TestJSONLinesRealFullDisk(t *testing.T) {
	dir := diskfull.Mount(t, 1<<20)
	f, err := os.Create(filepath.Join(dir, "intervals.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	j := NewJSONLines(f)
	line := map[string]string{"pad": strings.Repeat("x", 1000)}
	for i := 0; i < 10_000 && j.Err() == nil; i++ { // 1 MiB holds about a thousand
		j.Write(line)
	}
	if !errors.Is(j.Err(), syscall.ENOSPC) {
		t.Fatalf("Err %v after %d lines, want ENOSPC", j.Err(), j.Lines())
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	n := bytes.Count(b, []byte("\n"))
	if n != j.Lines() || n == 0 || !bytes.HasSuffix(b, []byte("}\n")) {
		t.Errorf("file: %d bytes, %d newlines, ends %q; Lines %d", len(b), n, b[max(0, len(b)-5):], j.Lines())
	}
}

// TestWaits: what operations waited for, by name, against hand arithmetic. Op a: two
// completions waiting 1 and 3 ms for the pool and 0 and 2 ms for the section, one
// failure waiting 4 ms for the pool: the pool 8 ms in all, 8/3 = 2.667 ms a
// transaction that ran; the section 2 ms, 0.667 ms. Op b waited 5 ms for the section,
// in a second handle. A tick later, the interval holds none of it.
func TestWaits(t *testing.T) {
	start := time.Unix(0, 0)
	r := NewRegistry([]string{"a", "b"}, start)
	r.SetWaits([]string{"pool", "cs"})
	h1, h2 := r.NewHandle(), r.NewHandle()
	h1.Record("a", 5*time.Millisecond, Counts{WaitNs: []int64{1e6, 0}})
	h1.Record("a", 9*time.Millisecond, Counts{WaitNs: []int64{3e6, 2e6}})
	h1.RecordError("a", start, "failed", Counts{WaitNs: []int64{4e6, 0}})
	h2.Record("b", 7*time.Millisecond, Counts{WaitNs: []int64{0, 5e6}})
	_, cum := r.Tick(start.Add(time.Second), start)
	a := cum.Report("a")
	if a.Waits["pool"] != (OpWait{Seconds: 0.008, MeanMs: 2.667}) || a.Waits["cs"] != (OpWait{Seconds: 0.002, MeanMs: 0.667}) {
		t.Errorf("a's waits %+v, want pool 0.008 s (2.667 ms) and cs 0.002 s (0.667 ms)", a.Waits)
	}
	if got := cum.Report("b").Waits["cs"]; got != (OpWait{Seconds: 0.005, MeanMs: 5}) {
		t.Errorf("b's wait for cs %+v, want 0.005 s (5 ms)", got)
	}
	if got := cum.WaitSeconds(); len(got) != 2 || got[0] != 0.008 || math.Abs(got[1]-0.007) > 1e-12 {
		t.Errorf("WaitSeconds %v, want [0.008 0.007]", got)
	}
	iv, _ := r.Tick(start.Add(2*time.Second), start)
	if got := iv.WaitSeconds(); got[0] != 0 || got[1] != 0 {
		t.Errorf("the next interval's waits %v, want none", got)
	}
	// Without named waits a report has none.
	plain := NewRegistry([]string{"x"}, start)
	plain.NewHandle().Record("x", time.Millisecond, Counts{Queries: 1})
	if _, c := plain.Tick(start.Add(time.Second), start); c.Report("x").Waits != nil {
		t.Errorf("waits %+v without any named", c.Report("x").Waits)
	}
}
