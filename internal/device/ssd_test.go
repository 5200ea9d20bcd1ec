package device

import "testing"

// tssd: 4 dies, firmware 10 us (one controller), read 50 us, program 200 us, 4 KiB
// over a channel or the interface in 10 us each, flush 20 us, no write buffer.
func TestSSDServiceTimes(t *testing.T) {
	tests := []struct {
		name  string
		spec  string
		steps []step
	}{
		{"QD1 read", "tssd", []step{
			// controller 0-10, die 10-70 (50 + 10), interface 70-80.
			{0, rd(0, 4096), 80 * us},
		}},
		{"QD4 reads on four dies overlap", "tssd", []step{
			// Controller 0-10, 10-20, 20-30, 30-40; dies end 70, 80, 90, 100;
			// interface 70-80, 80-90, 90-100, 100-110.
			{0, rd(0, 4096), 80 * us},
			{0, rd(4096, 4096), 90 * us},
			{0, rd(8192, 4096), 100 * us},
			{0, rd(12288, 4096), 110 * us},
		}},
		{"two reads on one die queue", "tssd", []step{
			// Pages 0 and 4 are both on die 0: 10-70, then 70-130; interface 130-140.
			{0, rd(0, 4096), 80 * us},
			{0, rd(4*4096, 4096), 140 * us},
		}},
		{"a read waiting for its die does not hold the interface", "tssd", []step{
			// Pages 0 and 4 share die 0 (10-70, 70-130); page 1 is on die 1. Read 3:
			// controller 20-30, die 1 30-90, then the interface 90-100, in the gap
			// before read 2 needs it (130-140), not after it.
			{0, rd(0, 4096), 80 * us},
			{0, rd(4*4096, 4096), 140 * us},
			{0, rd(4096, 4096), 100 * us},
		}},
		{"8K read spreads over two dies", "tssd", []step{
			// controller 0-10; dies 0 and 1 both 10-70; interface 8 KiB 70-90.
			{0, rd(0, 8192), 90 * us},
		}},
		{"write without buffer waits for the program", "tssd", []step{
			// interface 0-10, controller 10-20, die 20-230 (200 + 10).
			{0, wr(0, 4096), 230 * us},
			// Flush: after the last program (230) + 20.
			{240 * us, fl(0), 260 * us},
		}},
		{"buffered write acks early, flush waits", "tssd(write_buffer=1MiB)", []step{
			{0, wr(0, 4096), 20 * us},
			// Program ends at 230: flush 230 + 20.
			{25 * us, fl(0), 250 * us},
		}},
		{"power-loss protection: flush does not wait", "tssd(write_buffer=1MiB,power_loss_protection=on)", []step{
			{0, wr(0, 4096), 20 * us},
			{25 * us, fl(0), 45 * us},
		}},
		{"buffer full: the writer waits for a program", "tssd(write_buffer=0.0078125MiB)", []step{
			// An 8 KiB buffer. Writes 1 and 2 fill it (programs end 230 and 240 on dies
			// 0 and 1; acks 20 and 30).
			{0, wr(0, 4096), 20 * us},
			{0, wr(4096, 4096), 30 * us},
			// Write 3: controller 30-40, room when the first program ends at 230.
			{0, wr(8192, 4096), 230 * us},
		}},
		{"write amplification on random writes only", "tssd(write_amplification=2)", []step{
			// Random: program 400: interface 0-10, controller 10-20, die 0 20-430.
			{0, wr(40960, 4096), 430 * us},
			// Sequential: program 200: 1000-1010, 1010-1020, die 0 1020-1230.
			{1000 * us, wr(45056, 4096), 1230 * us},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runSteps(t, build(t, testRegistry(t), tt.spec), tt.steps)
		})
	}
}

// A single busy-until clock cannot show queue-depth scaling; parallel dies do.
func TestSSDQueueDepthScaling(t *testing.T) {
	r := testRegistry(t)
	for _, tt := range []struct {
		spec     string
		minRatio float64
	}{
		{"tssd", 2},     // 4 dies, random collisions: QD1 12.5K IOPS, QD32 ~ 40K
		{"sata-ssd", 4}, // firmware-bound near 66K
		{"nvme", 8},     // firmware-bound near 455K
	} {
		t.Run(tt.spec, func(t *testing.T) {
			m1, m32 := build(t, r, tt.spec), build(t, r, tt.spec)
			_, qd1 := closedLoop(m1, capacityOf(m1), 4096, 1, 500)
			_, qd32 := closedLoop(m32, capacityOf(m32), 4096, 32, 100)
			if qd32 < tt.minRatio*qd1 {
				t.Errorf("QD32 %.0f IOPS is less than %vx QD1 %.0f IOPS", qd32, tt.minRatio, qd1)
			}
			// A single server (one die, one controller) would not scale at all.
		})
	}
	one := build(t, r, "tssd(channels=1,dies_per_channel=1)")
	_, qd1 := closedLoop(one, capacityOf(one), 4096, 1, 500)
	one = build(t, r, "tssd(channels=1,dies_per_channel=1)")
	_, qd32 := closedLoop(one, capacityOf(one), 4096, 32, 100)
	if qd32 > 1.5*qd1 {
		t.Errorf("one die: QD32 %.0f IOPS vs QD1 %.0f: want little scaling", qd32, qd1)
	}
}
