package tpch

import (
	"fmt"

	"tierbench/internal/result"
	"tierbench/internal/workload"
)

// meta registers TPC-H with package workload; its gen and qgen tools are commands of
// their own.
var meta = workload.Meta{
	Name:    "tpch",
	Title:   "TPC-H",
	Short:   "TPC-H: data generator, query generator and the load/power/throughput run",
	Engine:  true,
	OutHelp: "directory for result.json (created if missing)",
	OutWhat: "the directory for result.json (and, by default, the database)",
	Phases: []workload.PhaseMeta{{
		Phase: workload.Run,
		Short: "Run the TPC-H load, power and throughput tests and report the official metrics",
		Example: `  tierbench tpch run --sf 0.1 --out runs/sqlite-sf0.1
  tierbench tpch run --engine postgres --buffer 1GB --sf 1 --validate --out runs/pg-sf1
  tierbench tpch run --engine mysql --dsn 'bench@tcp(127.0.0.1:3306)/tpch' --sf 1 --out runs/ext`,
		Estimates: true, Sections: true,
	}},
	New: func() workload.Workload { return New() },
	Result: workload.ResultMeta{
		// Results written before the benchmark member named TPC-H have its sf.
		Benchmarks: []string{"tpch"}, Untagged: "sf",
		New: func() workload.Result { return &Result{} },
		Headline: []workload.MetricInfo{
			{Name: "qphh_at_size", Title: "QphH@Size", Unit: "QphH@Size", Better: result.HigherIsBetter,
				What: "the composite queries per hour at the scale factor, sqrt(Power@Size x Throughput@Size) rounded to 0.1 (Clause 5.4.3)"},
			{Name: "power_at_size", Title: "Power@Size", Unit: "Power@Size", Better: result.HigherIsBetter,
				What: "the power test's queries per hour at the scale factor (Clause 5.4.1)"},
			{Name: "throughput_at_size", Title: "Throughput@Size", Unit: "Throughput@Size", Better: result.HigherIsBetter,
				What: "the throughput test's queries per hour at the scale factor (Clause 5.4.2)"},
			{Name: "qphh_at_size_unrounded", Title: "QphH@Size, unrounded", Unit: "QphH@Size", Better: result.HigherIsBetter,
				What: "QphH@Size from the unrounded timing intervals, for comparing runs"},
			{Name: "load_s", Title: "load time", Unit: "s", Better: result.LowerIsBetter,
				What: "the load test's time (Clause 5.1.1.2); absent when the load was skipped"},
		},
	},
}

func init() { workload.Register(meta) }

// Meta describes TPC-H.
func (b *Workload) Meta() workload.Meta { return meta }

// HeadlineMetrics are QphH@Size with its power and throughput parts (and its twin
// from unrounded times), and the load test's time.
func (r *Result) HeadlineMetrics() []result.Metric {
	var out []result.Metric
	if m := r.Metrics; m != nil {
		out = append(out,
			result.Metric{Name: "qphh_at_size", Value: m.QphHAtSize, Unit: "QphH@Size", Better: result.HigherIsBetter},
			result.Metric{Name: "power_at_size", Value: m.PowerAtSize, Unit: "Power@Size", Better: result.HigherIsBetter},
			result.Metric{Name: "throughput_at_size", Value: m.ThroughputAtSize, Unit: "Throughput@Size", Better: result.HigherIsBetter},
			result.Metric{Name: "qphh_at_size_unrounded", Value: m.QphHAtSizeUnrounded, Unit: "QphH@Size", Better: result.HigherIsBetter})
	}
	if l := r.Load; l != nil && !l.Skipped {
		out = append(out, result.Metric{Name: "load_s", Value: l.Total, Unit: "s", Better: result.LowerIsBetter})
	}
	return out
}

// TakeCause marks the run failed by cause, a death under it, ahead of what failed
// after (workload.CauseTaker).
func (r *Result) TakeCause(cause string) {
	if r.Failed == "" || r.Failed == cause {
		r.Failed = cause
		return
	}
	r.Failed = cause + "; then " + r.Failed
}

// RunStatus is failed for a run that stopped early or whose answers were wrong.
func (r *Result) RunStatus() (result.Status, string) {
	switch {
	case r.Failed != "":
		return result.StatusFailed, r.Failed
	case r.Validation != nil && !r.Validation.Passed:
		return result.StatusFailed, fmt.Sprintf("answer validation failed (%d mismatches)", len(r.Validation.Failures))
	}
	return result.StatusOK, ""
}
