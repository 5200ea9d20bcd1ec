package metrics

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteOpTable prints one row per operation, in the order of ops: counts and the
// latency percentiles in ms.
func WriteOpTable(w io.Writer, label string, ops []string, reports map[string]OpReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tcount\terrors\trollbacks\tretries\tp50\tp90\tp95\tp99\tp99.9\tmax ms\t\n", label)
	for _, op := range ops {
		s := reports[op]
		l := s.Latency
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", op, s.Count, s.Errors, s.Rollbacks, s.Retries,
			l.P50, l.P90, l.P95, l.P99, l.P999, l.Max)
	}
	return tw.Flush()
}
