package device

import (
	"testing"
	"time"
)

func TestTimelineFillsGaps(t *testing.T) {
	var tl timeline
	const u = time.Microsecond
	steps := []struct {
		now, ready, d, want time.Duration
	}{
		{0, 100 * u, 10 * u, 110 * u}, // 100-110
		{0, 0, 10 * u, 10 * u},        // 0-10: before the first booking
		{0, 5 * u, 10 * u, 20 * u},    // 10-20, after 0-10 (touching: merged)
		{0, 85 * u, 20 * u, 130 * u},  // 85-105 overlaps 100-110: 110-130
		{0, 20 * u, 80 * u, 100 * u},  // 20-100 fits exactly between 0-20 and 100-130
		{0, 0, 1 * u, 131 * u},        // no gap left before 130
		{200 * u, 150 * u, 10 * u, 160 * u},
	}
	for i, s := range steps {
		if got := tl.reserve(s.now, s.ready, s.d); got != s.want {
			t.Fatalf("step %d: reserve(%v, %v, %v) = %v, want %v", i, s.now, s.ready, s.d, got, s.want)
		}
	}
	// Bookings that ended before now=200 were forgotten: only 150-160 remains.
	if len(tl.busy) != 1 || tl.busy[0] != (span{150 * u, 160 * u}) {
		t.Fatalf("busy = %v, want [{150us 160us}]", tl.busy)
	}
}
