package tpcc

import (
	"fmt"
	"io"
	"text/tabwriter"

	"tierbench/internal/metrics"
)

// WriteSummary prints a run's result for people: the headline metrics, what they
// count, one row per transaction type and, for a sweep, the table of levels.
func WriteSummary(w io.Writer, r *Result) {
	fmt.Fprintf(w, "\nTPC-C on %s %s (%s), %d warehouse(s), %s loop, status %s\n", r.Engine.Name, r.Engine.Version, r.Engine.Mode, r.Warehouses, r.Loop, r.Status)
	if r.Error != "" {
		fmt.Fprintf(w, "error: %s\n", r.Error)
	}
	fmt.Fprintf(w, "users %d: NOPM %.0f (server: %.0f)  TPM %.0f  TPS %.1f  QPS %.1f\n", r.Users, r.NOPM, r.NOPMServer, r.TPM, r.TPS, r.QPS)
	fmt.Fprintln(w, "NOPM and TPM as HammerDB defines them, counted by tierbench's users (see definitions in result.json)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "transaction\tcount\terrors\trollbacks\tretries\tp50\tp90\tp95\tp99\tp99.9\tmax ms\t")
	for _, op := range TxnNames {
		s := r.Transactions[op]
		l := s.Latency
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", op, s.Count, s.Errors, s.Rollbacks, s.Retries,
			l.P50, l.P90, l.P95, l.P99, l.P999, l.Max)
	}
	tw.Flush()
	if len(r.Sweep) > 1 {
		fmt.Fprintln(w, "\nconcurrency sweep (saturation: the fewest users reaching 95% of the best throughput)")
		metrics.WriteSweepTable(w, r.Sweep)
	}
}

// WriteCheck prints the conditions, one a line.
func WriteCheck(w io.Writer, cs []Condition) {
	for _, c := range cs {
		status := "PASS"
		if !c.Passed {
			status = "FAIL"
		}
		fmt.Fprintf(w, "%s  %2d (clause %s) %s", status, c.Number, c.Clause, c.Text)
		if c.Violations > 0 {
			fmt.Fprintf(w, ": %d violations", c.Violations)
		}
		if c.Error != "" {
			fmt.Fprintf(w, ": %s", c.Error)
		}
		fmt.Fprintln(w)
	}
}
