package twin

import (
	"testing"

	"tierbench/internal/resultfile"
	"tierbench/internal/workload/tpch"
)

// TestTPCHMetricsUnrounded: validate compares TPC-H's three figures from the
// unrounded intervals, not the reported ones that round each query up to 0.1 s.
func TestTPCHMetricsUnrounded(t *testing.T) {
	r := &caseRun{c: Case{"tpch", "postgres"}}
	d := &resultfile.Decoded{Result: &tpch.Result{Metrics: &tpch.Metrics{
		PowerAtSize: 1749, ThroughputAtSize: 5280, QphHAtSize: 3038.9,
		PowerAtSizeUnrounded: 2600.5, ThroughputAtSizeUnrounded: 5300.25, QphHAtSizeUnrounded: 3712.5,
	}}}
	m, err := r.metricsOf(d, Real)
	if err != nil {
		t.Fatal(err)
	}
	if m["power"] != 2600.5 || m["throughput"] != 5300.25 || m["qphh"] != 3712.5 {
		t.Errorf("metrics %v: want the unrounded 2600.5, 5300.25 and 3712.5", m)
	}
	if _, err := r.metricsOf(&resultfile.Decoded{Result: &tpch.Result{}}, Real); err == nil {
		t.Error("a TPC-H result without metrics gave figures")
	}
}
