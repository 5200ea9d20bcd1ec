package emulator

import (
	"math"
	"testing"

	"tierbench/internal/device"
)

// Each throughput probe is checked against the rate the caps allow its requests,
// worked out by hand: gp3 at 3,000 IOPS and 125 MiB/s passes 3,000 random 8 KiB reads a
// second (one operation each), and 1 MiB sequential reads at 131.072 MB/s.
func TestCapChecks(t *testing.T) {
	caps := device.Caps{IOPS: 3000, MBps: 131.072, IOSizeKiB: 256, Merge: true, MergeMinKiB: 32}
	shapes := map[string]probeShape{
		"randread-8k-qd32":  {size: 8 << 10},
		"randread-8k-qd1":   {size: 8 << 10},
		"seqread-1m-qd1":    {size: 1 << 20, sequential: true},
		"randwrite-8k-qd32": {size: 8 << 10},
	}
	results := []ProbeResult{
		{Probe: "randread-8k-qd32", Metric: "iops", Model: 3001, Measured: 2940}, // -2%: holds
		{Probe: "randread-8k-qd1", Metric: "mean_latency_us", Model: 220, Measured: 230},
		{Probe: "seqread-1m-qd1", Metric: "mb_per_s", Model: 120, Measured: 119},  // latency-bound
		{Probe: "randwrite-8k-qd32", Metric: "iops", Model: 3000, Measured: 2700}, // -10%: fails
	}
	got := capChecks(caps, results, shapes)
	if len(got) != 3 {
		t.Fatalf("%d checks, want 3 (the latency probe has no cap): %+v", len(got), got)
	}
	want := []struct {
		cap, errPct    float64
		binding, holds bool
	}{
		{3000, -2, true, true},
		{131.072, (119 - 131.072) / 131.072 * 100, false, false},
		{3000, -10, true, false},
	}
	for i, w := range want {
		g := got[i]
		if math.Abs(g.Cap-w.cap) > 1e-9 || math.Abs(g.ErrorPct-w.errPct) > 1e-9 || g.Binding != w.binding || g.Holds != w.holds {
			t.Errorf("check %d (%s): cap %v error %v%% binding %v holds %v, want %v %v%% %v %v",
				i, g.Probe, g.Cap, g.ErrorPct, g.Binding, g.Holds, w.cap, w.errPct, w.binding, w.holds)
		}
	}
	if got[1].Why == "" {
		t.Errorf("a cap the model does not reach carries no reason")
	}
}
