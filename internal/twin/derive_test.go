package twin

import (
	"math"
	"strconv"
	"testing"
	"time"

	"tierbench/internal/device"
)

// same is n requests of d each.
func same(n int, d time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// derived fits made-up probe rounds, with pairs as the writeflush-8k probe's
// latencies.
func derived(t *testing.T, pairs []time.Duration) *FitResult {
	t.Helper()
	rate := func(n int64) round { return round{requests: n, elapsed: time.Second} }
	runs := make([][]round, len(probes))
	set := func(name string, rs ...round) { runs[probeIndex(name)] = rs }
	// reads: 990 of 100 us and 10 of 1 ms: mean 109 us, p99.9 (the 999th) 1 ms
	reads := append(same(990, 100*time.Microsecond), same(10, time.Millisecond)...)
	set("randread-8k-qd1", round{requests: 1000, elapsed: time.Second, latencies: reads})
	set("randwrite-8k-qd1", round{requests: 1000, elapsed: time.Second, latencies: same(1000, 200*time.Microsecond)})
	set("writeflush-8k", round{requests: int64(len(pairs)), elapsed: time.Second, latencies: pairs})
	// 1 MiB reads in 1100 us: the 1016 KiB past 8 KiB in 1100 - 109 us
	set("seqread-1m-qd1", round{requests: 10, bytes: 10 << 20, elapsed: 11 * time.Millisecond, latencies: same(10, 1100*time.Microsecond)})
	set("seqwrite-1m-qd1", round{requests: 10, bytes: 10 << 20, elapsed: 7 * time.Millisecond, latencies: same(10, 700*time.Microsecond)})
	set("randread-8k-qd32", rate(29000), rate(30000), rate(31000))
	set("randwrite-8k-qd32", rate(20000))
	set("randread-8k-qd128", rate(60000))
	set("writeback-8k", rate(50000))
	set("randrw70-8k-qd32", rate(25000))
	set("commit-8k", round{requests: 1000, elapsed: time.Second, latencies: same(1000, time.Millisecond)})
	res := &FitResult{Where: &Where{Dir: "/d", Device: "vdz", FSType: "ext4", Source: "/dev/vdz", CapacityBytes: 100e9, QueueDepth: 256, MaxRequestKiB: 4096},
		Rounds: 1, Name: "twin-vdz", Host: "h", Budget: time.Second, Size: 1 << 30}
	if err := res.derive(runs); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestDerive fits made-up probe rounds and checks the fields by hand.
func TestDerive(t *testing.T) {
	// a write and fdatasync take 500 us: the flush is 500 - 200
	res := derived(t, same(1000, 500*time.Microsecond))
	for key, want := range map[string]float64{
		"capacity_gb": 100, "read_p50_us": 100, "read_p99_us": 100, "read_p999_us": 1000, "read_tail_us": 1000,
		"read_mean_us": 109, "write_p1_us": 200, "write_mean_us": 200, "flush_p50_us": 300, "flush_mean_us": 300,
		"read_iops": 30000, "write_iops": 20000, "read_iops_qd128": 60000, "write_iops_qd128": 50000, "queue_depth": 256,
		"max_request_kib": 4096,
		// 1040384 bytes in 991 us and in 500 us: bytes per microsecond are MB/s
		"read_mbps": 1049.8, "write_mbps": 2080.8,
	} {
		got, ok := res.Fields[key].Value.(float64)
		if !ok || got != want {
			t.Errorf("%s = %v, want %v", key, res.Fields[key].Value, want)
		}
	}
	if q := res.Fields["queues"]; q.Source == "" || (q.Value != "shared" && q.Value != "separate") {
		t.Errorf("queues %+v", q)
	}
	ps, err := device.ParseProfiles("t.yaml", res.Profile)
	if err != nil {
		t.Fatal(err)
	}
	if src := ps[0].Fields["queue_depth"].Source; src != "nr_requests of /sys/block/vdz/queue: the requests the block layer holds in the device's queue" {
		t.Errorf("queue_depth source %q", src)
	}
	if src := ps[0].Fields["max_request_kib"].Source; src != "max_sectors_kb of /sys/block/vdz/queue: the largest request the block layer sends the device" {
		t.Errorf("max_request_kib source %q", src)
	}
	if src := ps[0].Fields["write_iops_qd128"].Source; src != "writeback-8k probe: median of 1 rounds (CV 0.0%), fdatasync of 4096 scattered 8 KiB blocks written through the page cache, the block layer's queue full (nr_requests 256)" {
		t.Errorf("write_iops_qd128 source %q", src)
	}
	if src := ps[0].Fields["flush_p50_us"].Source; src != "writeflush-8k probe: p50 of 1000 writes and fdatasyncs in 1 rounds, less the mean 8 KiB write (200.0 us, randwrite-8k-qd1 probe)" {
		t.Errorf("flush source %q", src)
	}
	// the model puts write and flush in sequence: 200 + 300 us, the probe's 500
	for _, r := range res.Probes {
		if r.Probe == "writeflush-8k" && (r.Model < 499 || r.Model > 501) {
			t.Errorf("writeflush-8k: model %v us, want 500", r.Model)
		}
		// at depth 128 and beyond the model passes the deeper probes' rates: x(128) =
		// 60000 x 109 us = 6.54 reads and 50000 x 200 us = 10 writes at once, each
		// stretched so that the busy servers pass x(128) per mean latency (the
		// writeback's 4096 writes at once, then a 300 us flush: 0.4% of them)
		if want := map[string]float64{"randread-8k-qd128": 60000, "writeback-8k": 50000}[r.Probe]; want != 0 &&
			math.Abs(r.Model-want)/want > 0.03 {
			t.Errorf("%s: model %.0f IOPS, want %.0f within 3%%", r.Probe, r.Model, want)
		}
		if r.Probe == "randread-8k-qd32" && r.CVPct != round3(1000.0/30000*100) {
			t.Errorf("CV of 29000, 30000, 31000: %v%%, want %v", r.CVPct, strconv.FormatFloat(1000.0/30000*100, 'f', 3, 64))
		}
	}
}

// TestDeriveFlushMean: when most pairs take less than the mean write (the fdatasync
// had nothing to do), the flush's mean is still the pairs' mean less the write's:
// 900 pairs of 150 us and 100 of 2150 us average 350 us, less 200 us is 150 us, where
// the mean of the differences clamped at 0 would be 195 us.
func TestDeriveFlushMean(t *testing.T) {
	res := derived(t, append(same(900, 150*time.Microsecond), same(100, 2150*time.Microsecond)...))
	for key, want := range map[string]float64{"flush_p50_us": 0, "flush_p99_us": 1950, "flush_mean_us": 150} {
		if got, ok := res.Fields[key].Value.(float64); !ok || got != want {
			t.Errorf("%s = %v, want %v", key, res.Fields[key].Value, want)
		}
	}
	// the model's write and flush in sequence give the probe's 350 us
	for _, r := range res.Probes {
		if r.Probe == "writeflush-8k" && (r.Model < 340 || r.Model > 360) {
			t.Errorf("writeflush-8k: model %v us, want 350", r.Model)
		}
	}
}

func TestQuantilesByNearestRank(t *testing.T) {
	xs := []time.Duration{1000, 2000, 3000, 4000} // ns
	for _, c := range []struct{ q, want float64 }{{0.01, 1}, {0.25, 1}, {0.5, 2}, {0.51, 3}, {0.999, 4}} {
		if got := quantileUs(xs, c.q); got != c.want {
			t.Errorf("q%v = %v us, want %v", c.q, got, c.want)
		}
	}
	// above the 0.5 quantile (rank 2): 3 and 4 us
	if got := tailUs(xs, 0.5); got != 3.5 {
		t.Errorf("tail above the median %v, want 3.5", got)
	}
	if got := flushSamples([]time.Duration{100e3, 500e3, 300e3}, 200); got[0] != 0 || got[1] != 100e3 || got[2] != 300e3 {
		t.Errorf("flush samples %v", got)
	}
}
