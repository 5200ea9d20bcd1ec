package emulator

import (
	"strings"
	"testing"
)

// TestCalibrationText: the table carries each probe's model, the host's best, the
// measured figure, both errors and the rounds, and marks a host-limited probe.
func TestCalibrationText(t *testing.T) {
	cal := &Calibration{Profile: "nvme", Path: PathPreload, FloorUs: 1.4, CeilingIOPS: 700000,
		ThreadCeilingIOPS: 140000, ModelRead8KUs: 22.2, Probes: []ProbeResult{
			{Probe: "randwrite-8k-qd32", Metric: "iops", Model: 341874, HostBest: 218910, Measured: 200000,
				ErrorPct: -41.5, HostLimited: true, ErrorVsHostBestPct: -8.6, Rounds: 5, Requests: 40000, LateP50Us: 135.2, LateP90Us: 150, LateP99Us: 270.3},
			{Probe: "randread-8k-qd1", Metric: "p50_latency_us", Model: 22.2, HostBest: 22.2, Measured: 22.4,
				ErrorPct: 0.9, ErrorVsHostBestPct: 0.9, Rounds: 3, Requests: 4000},
		}}
	var b strings.Builder
	if err := cal.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"700000 requests/s at queue depth 32 from one thread", "140000 from 32 threads",
		"MODEL  HOST BEST  MEASURED", "341874.0   218910.0  200000.0  -41.5% (host-limited)    -8.6%       5     40000    135.2/150.0/270.3",
		"22.2       22.2      22.4", "+0.9%    +0.9%       3      4000",
		"HOST BEST: the best this path can measure", "VS BEST:", "ROUNDS:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Count(out, "(host-limited)") != 1 {
		t.Errorf("want one host-limited row:\n%s", out)
	}
}

// TestProbesRun: a probe counts once however many rows it gave (queue depth 1 gives
// a mean and a p50 row).
func TestProbesRun(t *testing.T) {
	cal := &Calibration{Probes: []ProbeResult{
		{Probe: "randread-8k-qd1", Metric: "mean_latency_us"}, {Probe: "randread-8k-qd1", Metric: "p50_latency_us"},
		{Probe: "randread-8k-qd32", Metric: "iops"},
	}}
	if n := cal.ProbesRun(); n != 2 {
		t.Errorf("%d probes, want 2", n)
	}
	if n := (&Calibration{}).ProbesRun(); n != 0 {
		t.Errorf("%d probes of none", n)
	}
}
