package device

import (
	"math"
	"testing"
	"time"
)

// thdd: rev 10 ms, 10^6 bytes per track and per cylinder, 1000 cylinders, controller
// 0.5 ms, media 100 MB/s (10 KB = 0.1 ms), interface 200 MB/s, write settle 0.5 ms.
// Random fit (t2t 1, avg 5, full 10 ms): A = (8*10 - 15*5 + 7*1)/3 = 4 ms,
// B = (-5*10 + 15*5 - 10*1)/3 = 5 ms; seek(251) = 1 + 4*0.25 + 5*sqrt(0.25) = 4.5 ms.
const farOff = 251_000_000 + 250_000 // cylinder 251, a quarter track: angle 2.5 ms

func TestHDDServiceTimes(t *testing.T) {
	tests := []struct {
		name  string
		spec  string
		steps []step
	}{
		{"random, sequential, same cylinder", "thdd", []step{
			// 0.5 ctrl + 4.5 seek = 5.0; sector at 2.5: wait (2.5-5.0) mod 10 = 7.5; +0.1 xfer.
			{0, rd(farOff, 10_000), 12600 * us},
			// Next byte: no seek, no rotation: 20 + 0.5 ctrl + 0.1 xfer.
			{20 * ms, rd(farOff+10_000, 10_000), 20600 * us},
			// Same cylinder, angle 0: 30.5 -> wait 9.5 -> 40.0 + 4096/10^8 s = 40.96 us.
			{30 * ms, rd(251_000_000, 4096), 40*ms + 40960},
		}},
		{"one head: requests queue", "thdd", []step{
			{0, rd(farOff, 10_000), 12600 * us},
			// Queued until 12.6; sequential: + 0.5 + 0.1.
			{0, rd(farOff+10_000, 10_000), 13200 * us},
		}},
		{"write cache off: a commit waits a revolution", "thdd", []step{
			// 0.5 + 4.5 seek + 0.5 settle = 5.5; wait (2.5-5.5) mod 10 = 7; + 0.1.
			{0, wr(farOff, 10_000), 12600 * us},
			// Append 1 ms later: 13.6 + 0.5 = 14.1 (4.1 in the turn); sector at 2.6:
			// wait 8.5; + 0.1 = 22.7 (9.1 ms for 10 KB: nearly a revolution).
			{13600 * us, wr(farOff+10_000, 10_000), 22700 * us},
			// Nothing cached: the flush costs the controller overhead.
			{22700 * us, fl(1), 23200 * us},
		}},
		{"write cache on: the flush pays for the destage", "thdd(write_cache=on)", []step{
			// Ack after 0.5 ctrl + 10 KB / 200 MB/s = 0.55 ms; the head destages until 12.6.
			{0, wr(farOff, 10_000), 550 * us},
			// Flush waits for the head (12.6) + 0.5.
			{1 * ms, fl(1), 13100 * us},
		}},
		{"write cache full: the writer waits for room", "thdd(write_cache=on,cache_mb=1)", []step{
			// 600 KB: ack 0.5 + 3 ms. Destage at cylinder 0, angle 0: 0.5, wait 9.5, 6 ms -> 16.
			{0, wr(0, 600_000), 3500 * us},
			// 1.2 MB > 1 MB: room when the first destage ends (16): 16 + 0.5 + 3.
			{0, wr(600_000, 600_000), 19500 * us},
			// The second destage streams behind the first (16 + 6 = 22); flush 22 + 0.5.
			{0, fl(1), 22500 * us},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runSteps(t, build(t, testRegistry(t), tt.spec), tt.steps)
		})
	}
}

func TestHDDSeekCurve(t *testing.T) {
	r := testRegistry(t)
	for _, fit := range []string{"random", "uniform"} {
		t.Run(fit, func(t *testing.T) {
			h := build(t, r, "thdd(seek_fit="+fit+")").(*HDD)
			if got := h.SeekTime(0); got != 0 {
				t.Errorf("seek(0) = %v, want 0", got)
			}
			if got := h.SeekTime(1); got != 1*ms {
				t.Errorf("seek(1) = %v, want t2t 1ms", got)
			}
			if got := h.SeekTime(1001); got != 10*ms {
				t.Errorf("seek(N+1) = %v, want full 10ms", got)
			}
			// The average the fit promises: over random pairs (density 2(1-x)) for
			// "random", over uniform distances for "uniform".
			var sum, weight float64
			for d := int64(1); d <= 1000; d++ {
				w := 1.0
				if fit == "random" {
					w = float64(1000 - d + 1)
				}
				sum += w * float64(h.SeekTime(d))
				weight += w
			}
			if mean := time.Duration(sum / weight); math.Abs(float64(mean-5*ms)) > float64(50*us) {
				t.Errorf("mean seek %v, want 5ms +- 50us", mean)
			}
		})
	}
	// The uniform fit (docs/devices.md, "HDD service time"):
	// A = 4*10 - 6*5 + 2 = 12, B = -30 + 30 - 3 = -3;
	// seek(251) = 1 + 12*0.25 - 3*0.5 = 2.5 ms.
	if got := build(t, r, "thdd(seek_fit=uniform)").(*HDD).SeekTime(251); got != 2500*us {
		t.Errorf("uniform fit seek(251) = %v, want 2.5ms", got)
	}
}

// Sequential 64 KiB reads run at the media rate; random ones pay seek and rotation.
func TestHDDSequentialVersusRandom(t *testing.T) {
	r := testRegistry(t)
	run := func(random bool) time.Duration {
		m := build(t, r, "hdd-7200")
		rng := splitmix64(1)
		var at time.Duration
		for i := int64(0); i < 100; i++ {
			off := i * 65536
			if random {
				off = int64(rng.next()%(1_000_000_000_000/65536)) * 65536
			}
			at = m.Submit(at, rd(off, 65536))
		}
		return at
	}
	seq, rnd := run(false), run(true)
	// Sequential: 100 x (0.1 ms + 65536 B / 120 MB/s = 0.546 ms) = 64.6 ms, plus the
	// first request's seek-free rotational wait from angle 0.
	if seq > 80*ms {
		t.Errorf("100 sequential 64K reads took %v, want < 80ms", seq)
	}
	if rnd < 15*seq {
		t.Errorf("random %v is not 15x sequential %v", rnd, seq)
	}
}
