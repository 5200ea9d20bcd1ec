package device

import (
	"slices"
	"time"
)

// timeline is a resource that serves one transfer at a time but not necessarily in
// submission order: a transfer takes the earliest free gap at or after the moment it
// is ready. An SSD's host interface is such a resource. A single busy-until clock
// would make a read that waits for a busy die hold the interface until then, and
// every later request, even one whose data is ready at once, would queue behind it.
type timeline struct {
	busy []span // reserved, sorted by start, disjoint
}

type span struct{ start, end time.Duration }

// reserve books d at the earliest gap starting at or after ready and returns the end
// of the booking. Bookings that ended before now are forgotten.
func (t *timeline) reserve(now, ready, d time.Duration) time.Duration {
	if i := slices.IndexFunc(t.busy, func(s span) bool { return s.end > now }); i > 0 {
		t.busy = t.busy[i:]
	} else if i < 0 {
		t.busy = t.busy[:0]
	}
	start := ready
	i := 0
	for ; i < len(t.busy); i++ {
		s := t.busy[i]
		if start+d <= s.start {
			break // fits in the gap before s
		}
		start = max(start, s.end)
	}
	end := start + d
	if d <= 0 {
		return end
	}
	// Insert at i, merging with touching neighbours to keep the list short.
	n := span{start, end}
	if i > 0 && t.busy[i-1].end == start {
		i--
		n.start = t.busy[i].start
		t.busy = slices.Delete(t.busy, i, i+1)
	}
	if i < len(t.busy) && t.busy[i].start == end {
		n.end = t.busy[i].end
		t.busy = slices.Delete(t.busy, i, i+1)
	}
	t.busy = slices.Insert(t.busy, i, n)
	return end
}
