package tpch

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// The rounding rules this file applies, with the clauses of TPC-H 2.17.3 they come from:
//
//   - Each query interval QI(i,s) and refresh interval RI(j,s) is rounded to the nearest
//     0.1 s, halves upwards (23.74 -> 23.7, 23.75 -> 23.8); a value under 0.05 s becomes
//     0.1 s so that no interval is zero (Clause 5.3.7.5). The rounding is done on the
//     interval as a whole number of nanoseconds, so 0.15 s is a decimal half and gives 0.2.
//   - The throughput test's measurement interval Ts gets the same rounding. This is our
//     reading: Clause 5.3.7.5 names query and refresh intervals only, but Ts is reported
//     to 0.1 s like them in the disclosure, and computing Throughput@Size from
//     the reported Ts keeps the metric reproducible from the published numbers. It moves
//     Ts by at most 0.05 s.
//   - Power@Size (Clause 5.4.1): if max(QI)/min(QI) > 1000 over the 22 queries of the power
//     test, every QI below max/1000 is raised to max/1000, and that quantity is itself a
//     timing interval rounded as above (Clause 5.4.1.4). Refresh intervals are never raised.
//   - Power@Size, Throughput@Size and QphH@Size are reported rounded to the nearest 0.1
//     (Clauses 5.4.1.2, 5.4.2.2, 5.4.3.2). QphH@Size = sqrt(Power * Throughput) takes the
//     two before that final rounding (both still from rounded intervals), so no metric is
//     rounded twice.
//   - The *_unrounded twins use the raw intervals (the 1000x rule applied to raw values)
//     and are not rounded at all; they exist to compare runs finer than 0.1 s allows.

// queryCount is the number of TPC-H queries; a power test interval set has two more
// (RF1 and RF2), hence the 24th root of Clause 5.4.1.1.
const queryCount = 22

// officialScaleFactors maps each scale factor a result may be published at (Clause 4.1.3.1)
// to the minimum number of query streams of its throughput test (Clause 5.3.4.1).
var officialScaleFactors = map[float64]int{
	1: 2, 10: 3, 30: 4, 100: 5, 300: 6, 1000: 7, 3000: 8, 10000: 9, 30000: 10, 100000: 11,
}

// Finalize computes r.Metrics from the intervals in r and sets r.Reportable and
// r.NotReportable (Clauses 5.4 and 5.3). It reads nothing but r, so it recomputes the
// same metrics from a result.json read back from disk; it owns r.NotReportable and
// replaces the whole list each time.
func Finalize(r *Result) {
	var reasons []string
	minStreams, official := officialScaleFactors[r.SF]
	if !official {
		reasons = append(reasons, fmt.Sprintf("SF %s is not an official TPC-H scale factor (Clause 4.1.3.1): publishable sizes are %s",
			formatSF(r.SF), officialSFList()))
	} else if r.Streams < minStreams {
		reasons = append(reasons, fmt.Sprintf("%d query streams is below the minimum of %d for SF %s (Clause 5.3.4.1): use --streams %d or more",
			r.Streams, minStreams, formatSF(r.SF), minStreams))
	}
	if r.Failed != "" {
		reasons = append(reasons, "the run stopped before it finished: "+r.Failed)
	}
	if v := r.Validation; v != nil && !v.Passed {
		reasons = append(reasons, fmt.Sprintf("answer validation against %s failed: %s (see validation.failures)",
			v.Against, describeFailedQueries(v.Failures)))
	}

	// Power@Size and Throughput@Size before their final rounding, official and raw.
	var power, powerRaw, tput, tputRaw float64
	powerQI, powerRI, why := powerIntervals(r.Power)
	if why != "" {
		reasons = append(reasons, why)
	} else {
		power = powerAtSize(r.SF, powerQI, powerRI, true)
		powerRaw = powerAtSize(r.SF, powerQI, powerRI, false)
	}
	streams, ts, whys := throughputInterval(r)
	reasons = append(reasons, whys...)
	if streams > 0 {
		tput = throughputAtSize(r.SF, streams, roundInterval(ts))
		tputRaw = throughputAtSize(r.SF, streams, ts)
	}
	m := Metrics{
		PowerAtSize:               roundMetric(power),
		PowerAtSizeUnrounded:      powerRaw,
		ThroughputAtSize:          roundMetric(tput),
		ThroughputAtSizeUnrounded: tputRaw,
		// Clause 5.4.3.1, from Power and Throughput before their rounding to 0.1.
		QphHAtSize:          roundMetric(math.Sqrt(power * tput)),
		QphHAtSizeUnrounded: math.Sqrt(powerRaw * tputRaw),
	}

	r.Metrics = nil
	if m != (Metrics{}) {
		r.Metrics = &m
	}
	r.NotReportable = reasons
	r.Reportable = len(reasons) == 0
}

// powerIntervals returns the 22 query intervals (Q1..Q22 order) and RF1, RF2 of the
// power test, or why Power@Size (and so QphH@Size) cannot be computed.
func powerIntervals(p *PowerResult) (qi, ri []float64, why string) {
	const what = "Power@Size and QphH@Size are not computed"
	if p == nil {
		return nil, nil, "no power test was run: " + what
	}
	if len(p.TimedOut) > 0 {
		return nil, nil, fmt.Sprintf("power test: %s timed out (--query-timeout): %s; raise or drop --query-timeout",
			strings.Join(p.TimedOut, ", "), what)
	}
	qi, missing := queryIntervals(p.Queries)
	for _, rf := range []struct {
		name string
		sec  float64
	}{{"RF1", p.RF1}, {"RF2", p.RF2}} {
		if !validInterval(rf.sec) {
			missing = append(missing, rf.name)
		}
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Sprintf("power test incomplete, no time for %s: %s", strings.Join(missing, ", "), what)
	}
	return qi, []float64{p.RF1, p.RF2}, ""
}

// throughputInterval returns the stream count S and the measurement interval Ts of the
// throughput test, S = 0 when Throughput@Size cannot be computed, and the reasons the
// throughput test keeps the result from being reportable.
func throughputInterval(r *Result) (streams int, ts float64, reasons []string) {
	const what = "Throughput@Size and QphH@Size are not computed"
	t := r.Throughput
	if t == nil {
		return 0, 0, []string{"no throughput test was run: " + what}
	}
	if len(t.TimedOut) > 0 {
		return 0, 0, []string{fmt.Sprintf("throughput test: %s timed out (--query-timeout): %s; raise or drop --query-timeout",
			strings.Join(t.TimedOut, ", "), what)}
	}
	var missing []string
	for s, times := range t.Streams {
		_, m := queryIntervals(times)
		for _, q := range m {
			missing = append(missing, fmt.Sprintf("stream %d %s", s+1, q))
		}
	}
	switch {
	case len(t.Streams) == 0:
		return 0, 0, []string{"throughput test ran no query stream: " + what}
	case len(missing) > 0:
		if len(missing) > 5 {
			missing = append(missing[:5], fmt.Sprintf("%d more", len(missing)-5))
		}
		return 0, 0, []string{fmt.Sprintf("throughput test incomplete, no time for %s: %s", strings.Join(missing, ", "), what)}
	case !validInterval(t.Seconds):
		return 0, 0, []string{"throughput test has no measurement interval Ts: " + what}
	case r.Streams != 0 && r.Streams != len(t.Streams):
		return 0, 0, []string{fmt.Sprintf("throughput test ran %d query streams but the run asked for %d: %s",
			len(t.Streams), r.Streams, what)}
	}
	pairs := 0
	for _, p := range t.Refresh {
		if validInterval(p.RF1) && validInterval(p.RF2) {
			pairs++
		}
	}
	if pairs < len(t.Streams) {
		// Clause 5.3.4: the refresh stream runs one RF1/RF2 pair per query stream. The
		// metric only needs Ts, so it is still computed.
		reasons = append(reasons, fmt.Sprintf("the throughput test's refresh stream completed %d RF1/RF2 pairs; the spec requires one per query stream (%d)",
			pairs, len(t.Streams)))
	}
	return len(t.Streams), t.Seconds, reasons
}

// queryIntervals returns Q1..Q22 from times in query number order and the names of
// those without a usable interval.
func queryIntervals(times map[string]float64) (qi []float64, missing []string) {
	qi = make([]float64, queryCount)
	for i := range qi {
		name := "Q" + strconv.Itoa(i+1)
		sec, ok := times[name]
		if !ok || !validInterval(sec) {
			missing = append(missing, name)
		}
		qi[i] = sec
	}
	return qi, missing
}

// validInterval reports whether sec is a measured interval. A real interval is never
// exactly zero at the clock's nanosecond resolution, so zero means "not measured".
func validInterval(sec float64) bool {
	return sec > 0 && !math.IsInf(sec, 0) && !math.IsNaN(sec)
}

// powerAtSize is Clause 5.4.1: 3600*SF / (prod QI * prod RI)^(1/24), computed through
// logarithms so the product cannot overflow. With rounded set, every interval and the
// 1000x floor are rounded as Clause 5.3.7.5 says; the result itself is not rounded.
func powerAtSize(sf float64, qi, ri []float64, rounded bool) float64 {
	round := func(x float64) float64 { return x }
	if rounded {
		round = roundInterval
	}
	q := make([]float64, len(qi))
	maxQ, minQ := 0.0, math.Inf(1)
	for i, x := range qi {
		q[i] = round(x)
		maxQ, minQ = max(maxQ, q[i]), min(minQ, q[i])
	}
	if maxQ/minQ > 1000 { // Clause 5.4.1.4
		threshold := maxQ / 1000
		floor := round(threshold)
		for i := range q {
			if q[i] < threshold {
				q[i] = floor
			}
		}
	}
	sumLn := 0.0
	for _, x := range q {
		sumLn += math.Log(x)
	}
	for _, x := range ri {
		sumLn += math.Log(round(x))
	}
	return 3600 * sf * math.Exp(-sumLn/float64(len(q)+len(ri)))
}

// throughputAtSize is Clause 5.4.2.1: S*22*3600/Ts * SF.
func throughputAtSize(sf float64, streams int, ts float64) float64 {
	return float64(streams) * queryCount * 3600 / ts * sf
}

// roundInterval rounds a timing interval in seconds as Clause 5.3.7.5 says: to the
// nearest 0.1 s with halves going up, and anything under 0.05 s to 0.1 s. It counts
// whole nanoseconds so that a decimal half such as 0.15 (which float64 holds as
// 0.1499999...) rounds up as the spec's 23.75 -> 23.8 example does.
func roundInterval(sec float64) float64 {
	ns := math.Round(sec * 1e9)
	tenths := math.Floor((ns + 5e7) / 1e8)
	if tenths < 1 {
		tenths = 1
	}
	return tenths / 10
}

// roundMetric rounds a metric to the nearest 0.1 (Clauses 5.4.1.2, 5.4.2.2, 5.4.3.2).
func roundMetric(x float64) float64 {
	return math.Round(x*10) / 10
}

// formatSF prints a scale factor the way a user types it: 1, 0.1, 0.01.
func formatSF(sf float64) string {
	return strconv.FormatFloat(sf, 'f', -1, 64)
}

// officialSFList lists the official scale factors in increasing order.
func officialSFList() string {
	sfs := make([]float64, 0, len(officialScaleFactors))
	for sf := range officialScaleFactors {
		sfs = append(sfs, sf)
	}
	sort.Float64s(sfs)
	parts := make([]string, len(sfs))
	for i, sf := range sfs {
		parts[i] = formatSF(sf)
	}
	return strings.Join(parts, ", ")
}
