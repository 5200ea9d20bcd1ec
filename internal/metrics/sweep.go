package metrics

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// SaturationShare is how close to the best throughput a level must come to count as
// saturated: beyond the first level reaching 95% of the best, more users buy at most
// 5% more throughput, only longer queues.
const SaturationShare = 0.95

// Level is one step of a concurrency sweep.
type Level struct {
	Users int     `json:"users"`
	TPS   float64 `json:"tps"`
	// P95 and P99 are latencies over all operations, in ms.
	P95 float64 `json:"p95_ms"`
	P99 float64 `json:"p99_ms"`
	// Saturated marks the saturation point.
	Saturated bool `json:"saturation_point,omitempty"`
}

// MarkSaturation marks the saturation point, the level with the fewest users whose
// throughput is at least SaturationShare of the best level's, and returns its index
// (-1 for no levels). Levels are taken in the order given.
func MarkSaturation(levels []Level) int {
	best := 0.0
	for _, l := range levels {
		best = max(best, l.TPS)
	}
	at := -1
	for i := range levels {
		levels[i].Saturated = false
		if at < 0 && best > 0 && levels[i].TPS >= SaturationShare*best {
			at = i
		}
	}
	if at >= 0 {
		levels[at].Saturated = true
	}
	return at
}

// WriteSweepTable prints one row per level, the saturation point marked with '*'.
func WriteSweepTable(w io.Writer, levels []Level) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "users\ttps\tp95 ms\tp99 ms\t\t")
	for _, l := range levels {
		mark := ""
		if l.Saturated {
			mark = "* saturation"
		}
		fmt.Fprintf(tw, "%d\t%.1f\t%.2f\t%.2f\t%s\t\n", l.Users, l.TPS, l.P95, l.P99, mark)
	}
	return tw.Flush()
}
