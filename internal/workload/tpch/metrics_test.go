package tpch

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"tierbench/internal/workload"
)

// metricsQueries returns Q1..Q22 -> sec(q).
func metricsQueries(sec func(q int) float64) map[string]float64 {
	m := map[string]float64{}
	for q := 1; q <= queryCount; q++ {
		m["Q"+strconv.Itoa(q)] = sec(q)
	}
	return m
}

func metricsConstant(sec float64) func(int) float64 { return func(int) float64 { return sec } }

// metricsResult is a complete, reportable SF 1 run: every power interval 2.0 s, two
// streams, Ts = 100 s.
func metricsResult() *Result {
	return &Result{
		SF:      1,
		Streams: 2,
		Power:   &PowerResult{Queries: metricsQueries(metricsConstant(2)), RF1: 2, RF2: 2, UpdateSet: 1},
		Throughput: &ThroughputResult{
			Seconds: 100,
			Streams: []map[string]float64{metricsQueries(metricsConstant(9)), metricsQueries(metricsConstant(8))},
			Refresh: []RefreshPair{{UpdateSet: 2, RF1: 3, RF2: 3}, {UpdateSet: 3, RF1: 3, RF2: 3}},
		},
	}
}

func metricsClose(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.10g, want %.10g (±%g)", name, got, want, tol)
	}
}

func TestMetricRoundInterval(t *testing.T) {
	// Clause 5.3.7.5: nearest 0.1 s, halves up (its example: 23.74 -> 23.7, 23.75 -> 23.8),
	// and anything under 0.05 s is reported as 0.1 s.
	for _, tc := range []struct{ in, want float64 }{
		{0, 0.1},
		{1e-9, 0.1},
		{0.04, 0.1},
		{0.0499, 0.1},
		{0.05, 0.1},
		{0.149, 0.1},
		{0.15, 0.2}, // float64 holds 0.1499999...; the spec's half still goes up
		{0.25, 0.3},
		{0.95, 1.0},
		{1.45, 1.5},
		{2.0, 2.0},
		{23.74, 23.7},
		{23.75, 23.8},
		{3599.96, 3600.0},
	} {
		if got := roundInterval(tc.in); got != tc.want {
			t.Errorf("roundInterval(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestMetricPowerAtSize(t *testing.T) {
	for _, tc := range []struct {
		name           string
		sf             float64
		qi             func(q int) float64
		rf1, rf2       float64
		want, wantUnr  float64 // Power@Size (rounded to 0.1) and its unrounded twin
		unroundedSlack float64
	}{
		{
			// 24 intervals of 2 s: the geometric mean is 2, 3600*1/2 = 1800.
			name: "all 2 s", sf: 1, qi: metricsConstant(2), rf1: 2, rf2: 2,
			want: 1800.0, wantUnr: 1800,
		},
		{
			// SF scales the metric linearly: 3600*10/2.
			name: "all 2 s at SF 10", sf: 10, qi: metricsConstant(2), rf1: 2, rf2: 2,
			want: 18000.0, wantUnr: 18000,
		},
		{
			// Ratio exactly 1000 (100 s / 0.1 s) is not "greater than 1000": no clamp.
			// Product = 100 * 0.1^21 * 0.1^2 = 10^-21; 24th root 10^-0.875;
			// 3600 * 10^0.875 = 3600 * 7.49894209 = 26996.19.
			name: "ratio 1000 not clamped", sf: 1,
			qi:  func(q int) float64 { return map[bool]float64{true: 100, false: 0.1}[q == 1] },
			rf1: 0.1, rf2: 0.1, want: 26996.2, wantUnr: 26996.19153596841, unroundedSlack: 1e-6,
		},
		{
			// Q1 = 200 s, the others 0.03 s (rounded: 0.1 s), RF 0.2 s. Ratio 2000 > 1000, so
			// the 21 short queries are raised to 200/1000 = 0.2 s, raw and rounded alike.
			// Product = 200 * 0.2^21 * 0.2^2 = 1000 * 0.2^24; 24th root 0.2 * 10^(1/8)
			// = 0.2 * 1.33352143 = 0.26670429; 3600 / 0.26670429 = 13498.0958.
			name: "1000x clamp", sf: 1,
			qi:  func(q int) float64 { return map[bool]float64{true: 200, false: 0.03}[q == 1] },
			rf1: 0.2, rf2: 0.2, want: 13498.1, wantUnr: 13498.095767984205, unroundedSlack: 1e-6,
		},
		{
			// Q1 = 150 s, the others 0.01 s (rounded 0.1 s), RF 1.5 s. Ratio 1500 > 1000;
			// max/1000 = 0.15 s is itself a timing interval (Clause 5.4.1.4), rounded half up
			// to 0.2 s, so the official product is 150 * 0.2^21 * 1.5^2 = 337.5 * 0.2^21:
			// ln = 5.82157 - 33.79824 = -27.97667; 3600 * e^(27.97667/24) = 3600 * 3.20815
			// = 11549.32. The unrounded twin raises them to 0.15 exactly:
			// 337.5 * 0.15^21 -> 3600 * e^(-(5.82157 + 21 ln 0.15)/24) = 14855.18.
			name: "1000x clamp with rounded floor", sf: 1,
			qi:  func(q int) float64 { return map[bool]float64{true: 150, false: 0.01}[q == 1] },
			rf1: 1.5, rf2: 1.5, want: 11549.3, wantUnr: 14855.179653390258, unroundedSlack: 1e-6,
		},
		{
			// The 1000x rule raises query intervals only, never refresh ones: RF 0.001 s
			// counts as 0.1 s officially (Clause 5.3.7.5) and as 0.001 s unrounded.
			// Official: 22 queries of 1 s, RFs 0.1 s: product 0.01, root 0.01^(1/24) =
			// 10^(-1/12) = 0.82540; 3600 / 0.82540 = 4361.54.
			name: "refresh not clamped", sf: 1, qi: metricsConstant(1), rf1: 0.001, rf2: 0.001,
			want: 4361.5, wantUnr: 3600 * math.Pow(10, 0.25), unroundedSlack: 1e-6,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := metricsResult()
			r.SF = tc.sf
			r.Power = &PowerResult{Queries: metricsQueries(tc.qi), RF1: tc.rf1, RF2: tc.rf2}
			Finalize(r)
			if r.Metrics == nil {
				t.Fatalf("Metrics = nil; not reportable: %q", r.NotReportable)
			}
			if r.Metrics.PowerAtSize != tc.want {
				t.Errorf("PowerAtSize = %v, want %v", r.Metrics.PowerAtSize, tc.want)
			}
			metricsClose(t, "PowerAtSizeUnrounded", r.Metrics.PowerAtSizeUnrounded, tc.wantUnr, max(tc.unroundedSlack, 1e-9))
		})
	}
}

func TestMetricThroughputAndQphH(t *testing.T) {
	r := metricsResult()
	// Ts = 100.04 s is reported as 100.0 s: 2 * 22 * 3600 / 100.0 * 1 = 1584.0;
	// unrounded 158400 / 100.04 = 1583.3667.
	r.Throughput.Seconds = 100.04
	Finalize(r)
	m := r.Metrics
	if m.ThroughputAtSize != 1584.0 {
		t.Errorf("ThroughputAtSize = %v, want 1584.0", m.ThroughputAtSize)
	}
	metricsClose(t, "ThroughputAtSizeUnrounded", m.ThroughputAtSizeUnrounded, 158400/100.04, 1e-9)
	// QphH = sqrt(1800 * 1584) = sqrt(2851200) = 1688.5497 -> 1688.5.
	if m.QphHAtSize != 1688.5 {
		t.Errorf("QphHAtSize = %v, want 1688.5", m.QphHAtSize)
	}
	metricsClose(t, "QphHAtSizeUnrounded", m.QphHAtSizeUnrounded, math.Sqrt(1800*158400/100.04), 1e-9)
	if !r.Reportable || len(r.NotReportable) > 0 {
		t.Errorf("Reportable = %v, NotReportable = %q; want a reportable result", r.Reportable, r.NotReportable)
	}

	// SF 10 with 3 streams and Ts = 600 s: 3 * 22 * 3600 / 600 * 10 = 3960.0.
	r = metricsResult()
	r.SF, r.Streams = 10, 3
	r.Throughput.Seconds = 600
	r.Throughput.Streams = append(r.Throughput.Streams, metricsQueries(metricsConstant(7)))
	r.Throughput.Refresh = append(r.Throughput.Refresh, RefreshPair{UpdateSet: 4, RF1: 1, RF2: 1})
	Finalize(r)
	if r.Metrics.ThroughputAtSize != 3960.0 {
		t.Errorf("SF 10: ThroughputAtSize = %v, want 3960.0", r.Metrics.ThroughputAtSize)
	}
	if !r.Reportable {
		t.Errorf("SF 10 with 3 streams: NotReportable = %q", r.NotReportable)
	}
}

func TestMetricMetricsIgnoreTheMapOrder(t *testing.T) {
	// The sum of logarithms must not depend on Go's random map order: compare bits.
	r := metricsResult()
	r.Power.Queries = metricsQueries(func(q int) float64 { return 0.37 * float64(q) })
	Finalize(r)
	first := *r.Metrics
	for range 20 {
		Finalize(r)
		if *r.Metrics != first {
			t.Fatalf("metrics changed between calls: %+v then %+v", first, *r.Metrics)
		}
	}
}

func TestFinalizeNotReportable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(r *Result)
		// want lists substrings, one per expected reason, in order.
		want                    []string
		power, throughput, qphh bool // whether each official metric is computed
	}{
		{name: "reportable", change: func(*Result) {}, power: true, throughput: true, qphh: true},
		{
			name:   "SF not official",
			change: func(r *Result) { r.SF = 0.1 },
			want:   []string{"SF 0.1 is not an official TPC-H scale factor (Clause 4.1.3.1): publishable sizes are 1, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000"},
			power:  true, throughput: true, qphh: true,
		},
		{
			name:   "too few streams",
			change: func(r *Result) { r.SF = 100 },
			want:   []string{"2 query streams is below the minimum of 5 for SF 100 (Clause 5.3.4.1): use --streams 5 or more"},
			power:  true, throughput: true, qphh: true,
		},
		{
			name: "power query timed out",
			change: func(r *Result) {
				r.Power.TimedOut = []string{"Q18"}
			},
			want:       []string{"power test: Q18 timed out (--query-timeout): Power@Size and QphH@Size are not computed"},
			throughput: true,
		},
		{
			name: "throughput query timed out",
			change: func(r *Result) {
				r.Throughput.TimedOut = []string{"stream 2 Q21"}
			},
			want:  []string{"throughput test: stream 2 Q21 timed out (--query-timeout): Throughput@Size and QphH@Size are not computed"},
			power: true,
		},
		{
			name: "validation failed",
			change: func(r *Result) {
				r.Validation = &Validation{Against: "postgres", Checked: 22, Failures: []string{
					`Q11 row 1 column value: got "1", want "17538456.86" (tolerance: within 100)`,
					"Q3: got 9 rows, want 10",
					"Q11: ... and 12 more mismatches",
				}}
			},
			want:  []string{"answer validation against postgres failed: wrong answers for Q3, Q11 (see validation.failures)"},
			power: true, throughput: true, qphh: true,
		},
		{
			name:   "run failed",
			change: func(r *Result) { r.Failed = "throughput test: connection lost"; r.Throughput = nil },
			want: []string{
				"the run stopped before it finished: throughput test: connection lost",
				"no throughput test was run: Throughput@Size and QphH@Size are not computed",
			},
			power: true,
		},
		{
			name:       "no power test",
			change:     func(r *Result) { r.Power = nil },
			want:       []string{"no power test was run: Power@Size and QphH@Size are not computed"},
			throughput: true,
		},
		{
			name: "power query missing",
			change: func(r *Result) {
				delete(r.Power.Queries, "Q9")
				r.Power.RF2 = 0
			},
			want:       []string{"power test incomplete, no time for Q9, RF2: Power@Size and QphH@Size are not computed"},
			throughput: true,
		},
		{
			name:   "throughput stream incomplete",
			change: func(r *Result) { delete(r.Throughput.Streams[1], "Q3") },
			want:   []string{"throughput test incomplete, no time for stream 2 Q3: Throughput@Size and QphH@Size are not computed"},
			power:  true,
		},
		{
			name:   "refresh pairs missing",
			change: func(r *Result) { r.Throughput.Refresh = r.Throughput.Refresh[:1] },
			want:   []string{"the throughput test's refresh stream completed 1 RF1/RF2 pairs; the spec requires one per query stream (2)"},
			power:  true, throughput: true, qphh: true,
		},
		{
			name: "several reasons at once",
			change: func(r *Result) {
				r.SF = 0.01
				r.Power.TimedOut = []string{"Q9", "Q18"}
				r.Throughput.TimedOut = []string{"stream 1 Q9"}
			},
			want: []string{
				"SF 0.01 is not an official",
				"power test: Q9, Q18 timed out",
				"throughput test: stream 1 Q9 timed out",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := metricsResult()
			r.Reportable, r.NotReportable = true, []string{"stale"}
			tc.change(r)
			Finalize(r)
			if got := len(r.NotReportable) == 0; r.Reportable != got {
				t.Errorf("Reportable = %v with reasons %q", r.Reportable, r.NotReportable)
			}
			if len(r.NotReportable) != len(tc.want) {
				t.Fatalf("NotReportable = %q, want %d reasons like %q", r.NotReportable, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(r.NotReportable[i], w) {
					t.Errorf("reason %d = %q, want it to contain %q", i, r.NotReportable[i], w)
				}
			}
			m := Metrics{}
			if r.Metrics != nil {
				m = *r.Metrics
			}
			for _, c := range []struct {
				name         string
				value, twin  float64
				wantComputed bool
			}{
				{"Power@Size", m.PowerAtSize, m.PowerAtSizeUnrounded, tc.power},
				{"Throughput@Size", m.ThroughputAtSize, m.ThroughputAtSizeUnrounded, tc.throughput},
				{"QphH@Size", m.QphHAtSize, m.QphHAtSizeUnrounded, tc.qphh},
			} {
				if computed := c.value > 0 && c.twin > 0; computed != c.wantComputed {
					t.Errorf("%s = %v (unrounded %v), want computed = %v", c.name, c.value, c.twin, c.wantComputed)
				}
			}
			if !tc.power && !tc.throughput && r.Metrics != nil {
				t.Errorf("Metrics = %+v, want nil when nothing can be computed", *r.Metrics)
			}
		})
	}
}

func TestFinalizeFromResultFile(t *testing.T) {
	// testdata/metrics_result.json is a hand-made result.json whose stored metrics and
	// reasons are wrong on purpose: Finalize must recompute everything from the intervals.
	data, err := os.ReadFile(filepath.Join("testdata", "metrics_result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	Finalize(&r)
	m := r.Metrics
	// Power: 11 queries of 4.04 s (-> 4.0), 11 of 0.96 s (-> 1.0), RF1 2.049 s (-> 2.0),
	// RF2 1.95 s (-> 2.0): product 4^11 * 1^11 * 2^2 = 2^24, root 2, 3600 / 2 = 1800.0.
	if m.PowerAtSize != 1800.0 {
		t.Errorf("PowerAtSize = %v, want 1800.0", m.PowerAtSize)
	}
	// Unrounded: 3600 * exp(-(11 ln 4.04 + 11 ln 0.96 + ln 2.049 + ln 1.95) / 24)
	// = 3600 * exp(-(15.3635 - 0.4490 + 0.7173 + 0.6678) / 24) = 1825.73.
	metricsClose(t, "PowerAtSizeUnrounded", m.PowerAtSizeUnrounded, 1825.7348387947363, 1e-6)
	// Throughput: Ts 158.44 s -> 158.4 s; 2 * 22 * 3600 / 158.4 = 1000.0.
	if m.ThroughputAtSize != 1000.0 {
		t.Errorf("ThroughputAtSize = %v, want 1000.0", m.ThroughputAtSize)
	}
	metricsClose(t, "ThroughputAtSizeUnrounded", m.ThroughputAtSizeUnrounded, 158400/158.44, 1e-9)
	// QphH = sqrt(1800 * 1000) = 1341.64 -> 1341.6; unrounded sqrt(1825.73 * 999.75) = 1351.03.
	if m.QphHAtSize != 1341.6 {
		t.Errorf("QphHAtSize = %v, want 1341.6", m.QphHAtSize)
	}
	metricsClose(t, "QphHAtSizeUnrounded", m.QphHAtSizeUnrounded, 1351.0269838309757, 1e-6)
	if !r.Reportable || r.NotReportable != nil {
		t.Errorf("Reportable = %v, NotReportable = %q; want reportable (SF 1, 2 streams, validated)", r.Reportable, r.NotReportable)
	}
}

func TestFinalizeRecomputesAfterWriteResult(t *testing.T) {
	// Metrics recomputed from the file written are bit-identical: JSON keeps
	// every float64 exactly.
	r := metricsResult()
	r.Power.Queries = metricsQueries(func(q int) float64 { return 0.123456789 * float64(q*q) })
	r.Throughput.Seconds = 1234.56789
	Finalize(r)
	dir := t.TempDir()
	if err := writeResult(dir, r); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	back.Metrics = nil
	Finalize(&back)
	if *back.Metrics != *r.Metrics {
		t.Errorf("recomputed metrics %+v, want %+v", *back.Metrics, *r.Metrics)
	}
	if back.Reportable != r.Reportable || !slices.Equal(back.NotReportable, r.NotReportable) {
		t.Errorf("recomputed verdict %v %q, want %v %q", back.Reportable, back.NotReportable, r.Reportable, r.NotReportable)
	}
}

// TestTPCEnergyRating: TPC-Energy rates TPC-H over its power and throughput tests
// per QphH@Size; a run without metrics has nothing to rate.
func TestTPCEnergyRating(t *testing.T) {
	var rated workload.EnergyRated = &Result{Metrics: &Metrics{QphHAtSize: 1234.5}}
	windows, metric, perf := rated.TPCEnergy()
	if !slices.Equal(windows, []string{WindowPower, WindowThroughput}) || metric != "Watts/KQphH@Size" || perf != 1234.5 {
		t.Errorf("TPCEnergy() = %v, %q, %g; want the power and throughput windows, Watts/KQphH@Size, 1234.5", windows, metric, perf)
	}
	if _, _, perf := (&Result{}).TPCEnergy(); perf != 0 {
		t.Errorf("a result without metrics rates %g, want 0", perf)
	}
}
