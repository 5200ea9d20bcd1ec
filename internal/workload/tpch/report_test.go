package tpch

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"tierbench/internal/engine"
	"tierbench/internal/metrics"
)

// saveIn does with a run's result what the lifecycle's Checkpoint does: it writes it
// to dir/result.json atomically.
func saveIn(dir string) func(any) error {
	return func(res any) error { return metrics.WriteJSONFile(filepath.Join(dir, ResultFile), res) }
}

func writeResult(dir string, r *Result) error { return saveIn(dir)(r) }

// reportResult is a complete SF 1 run with distinct times, finalized.
func reportResult() *Result {
	queries := func(base float64) map[string]float64 {
		m := map[string]float64{}
		for q := 1; q <= queryCount; q++ {
			m["Q"+strconv.Itoa(q)] = base + float64(q)*0.1234
		}
		return m
	}
	r := &Result{
		Tool:    "tierbench test",
		SF:      1,
		Streams: 2,
		Seed:    1123093015,
		Engine: engine.Info{Name: "postgres", Version: "16.4", Mode: engine.Managed,
			Settings: map[string]string{"shared_buffers": "1GB", "work_mem": "64MB"}},
		Started:  "2026-11-23T09:30:15Z",
		Finished: "2026-11-23T09:52:40Z",
		Load: &LoadResult{
			Steps: map[string]float64{"create tables": 0.021, "load": 95.5, "create indexes": 20.25, "analyze": 4.2},
			Order: []string{"create tables", "load", "create indexes", "analyze"},
			Total: 119.971,
			Rows:  map[string]int64{"lineitem": 6001215, "orders": 1500000},
		},
		Power: &PowerResult{Queries: queries(1), RF1: 2.0004, RF2: 1.5, UpdateSet: 1},
		Throughput: &ThroughputResult{
			Seconds: 158.44,
			Streams: []map[string]float64{queries(5), queries(6)},
			Refresh: []RefreshPair{{UpdateSet: 2, RF1: 2.5, RF2: 2.4}, {UpdateSet: 3, RF1: 2.6, RF2: 2.3}},
		},
		Validation: &Validation{Against: "TPC qualification answers", Passed: true, Checked: 22},
	}
	Finalize(r)
	return r
}

func TestReportwriteResult(t *testing.T) {
	dir := t.TempDir()
	r := reportResult()
	// A second write replaces the first: the runner hands the result over after each
	// test.
	first := *r
	first.Throughput = nil
	if err := writeResult(dir, &first); err != nil {
		t.Fatal(err)
	}
	if err := writeResult(dir, r); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "result.json" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %q, want only result.json (no temporary file left)", names)
	}
	path := filepath.Join(dir, "result.json")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o644 {
		t.Errorf("result.json mode = %v, want 0644", perm)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "{\n  \"tool\": ") || !strings.HasSuffix(string(data), "}\n") {
		t.Errorf("result.json is not indented JSON ending in a newline:\n%.200s", data)
	}
	var back Result
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, r) {
		t.Errorf("decoded result differs:\n got %+v\nwant %+v", back, *r)
	}
}

func TestReportWriteResultErrors(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	nan := reportResult()
	nan.Metrics.PowerAtSize = math.NaN()
	for _, tc := range []struct {
		name string
		dir  string
		r    *Result
		want []string
	}{
		{"missing directory", filepath.Join(tmp, "missing"), reportResult(),
			[]string{filepath.Join(tmp, "missing", "result.json"), "the directory does not exist: create it or choose another --out"}},
		{"not a directory", file, reportResult(),
			[]string{filepath.Join(file, "result.json"), "not a directory: choose another --out"}},
		// Written, with null for the NaN, and the error names it.
		{"unencodable", tmp, nan,
			[]string{filepath.Join(tmp, "result.json"), "metrics.power_at_size (NaN)", "written as null"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := writeResult(tc.dir, tc.r)
			if err == nil {
				t.Fatal("writeResult succeeded, want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(tmp, "readonly")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		err := writeResult(ro, reportResult())
		if err == nil || !strings.Contains(err.Error(), "not writable: fix its permissions or choose another --out") {
			t.Errorf("read-only directory: error %v, want one saying it is not writable", err)
		}
	}
}

func TestSummaryNotReportable(t *testing.T) {
	r := reportResult()
	r.SF = 0.1
	r.Power.TimedOut = []string{"Q18"}
	r.Throughput.TimedOut = []string{"stream 2 Q9"}
	r.Validation = &Validation{Against: "sqlite", Checked: 22}
	for i := range 25 {
		r.Validation.Failures = append(r.Validation.Failures, "Q11 row "+strconv.Itoa(i+1)+" column value: ...")
	}
	Finalize(r)
	var b strings.Builder
	Summary(&b, r)
	out := b.String()
	for _, want := range []string{
		"  Q18          3.221*\n",
		"  Q9          6.111        7.111*\n",
		"  * timed out (--query-timeout)\n",
		"  Power@Size         not computed\n",
		"  QphH@Size          not computed\n",
		"Reportable: no\n  - SF 0.1 is not an official TPC-H scale factor",
		"  - power test: Q18 timed out",
		"  - answer validation against sqlite failed: wrong answers for Q11 (see validation.failures)\n",
		"Validation against sqlite: FAILED, wrong answers for Q11 (22 queries checked)\n",
		"  Q11 row 20 column value: ...\n  ... and 5 more in result.json\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

func ExampleSummary() {
	Summary(os.Stdout, reportResult())
	// Output:
	// TPC-H run: SF 1, 2 query streams, seed 1123093015
	// Engine: postgres 16.4 (managed)
	// Settings: shared_buffers=1GB, work_mem=64MB
	// Started 2026-11-23T09:30:15Z, finished 2026-11-23T09:52:40Z
	//
	// Load test (Clause 5.1.1.2)
	//   step                seconds
	//   create tables         0.021
	//   load                 95.500
	//   create indexes       20.250
	//   analyze               4.200
	//   total               119.971
	//   rows: lineitem 6001215, orders 1500000
	//
	// Power test (query stream 0, update set 1)
	//              seconds
	//   RF1          2.000
	//   Q1           1.123
	//   Q2           1.247
	//   Q3           1.370
	//   Q4           1.494
	//   Q5           1.617
	//   Q6           1.740
	//   Q7           1.864
	//   Q8           1.987
	//   Q9           2.111
	//   Q10          2.234
	//   Q11          2.357
	//   Q12          2.481
	//   Q13          2.604
	//   Q14          2.728
	//   Q15          2.851
	//   Q16          2.974
	//   Q17          3.098
	//   Q18          3.221
	//   Q19          3.345
	//   Q20          3.468
	//   Q21          3.591
	//   Q22          3.715
	//   RF2          1.500
	//
	// Throughput test: 2 query streams, Ts = 158.440 s
	//            stream 1     stream 2
	//   Q1          5.123        6.123
	//   Q2          5.247        6.247
	//   Q3          5.370        6.370
	//   Q4          5.494        6.494
	//   Q5          5.617        6.617
	//   Q6          5.740        6.740
	//   Q7          5.864        6.864
	//   Q8          5.987        6.987
	//   Q9          6.111        7.111
	//   Q10         6.234        7.234
	//   Q11         6.357        7.357
	//   Q12         6.481        7.481
	//   Q13         6.604        7.604
	//   Q14         6.728        7.728
	//   Q15         6.851        7.851
	//   Q16         6.974        7.974
	//   Q17         7.098        8.098
	//   Q18         7.221        8.221
	//   Q19         7.345        8.345
	//   Q20         7.468        8.468
	//   Q21         7.591        8.591
	//   Q22         7.715        8.715
	//   Refresh stream
	//   pair  update set          RF1          RF2
	//   1              2        2.500        2.400
	//   2              3        2.600        2.300
	//
	// Metrics (Clause 5.4; official values use times rounded to 0.1 s, Clause 5.3.7.5)
	//   Power@Size               1616.3   from unrounded times: 1613.99
	//   Throughput@Size          1000.0   from unrounded times: 999.75
	//   QphH@Size                1271.4   from unrounded times: 1270.27
	//
	// Reportable: yes, as far as tierbench can check
	//   (a published TPC-H result takes two consecutive runs and reports the one with
	//   the lower QphH@Size, Clause 5.3.2; this is one run)
	//
	// Validation against TPC qualification answers: passed, 22 queries checked
}
