package tpcc

import (
	"fmt"
	"io"

	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/workload/vuser"
)

// WriteSummary prints a run's result for people: first, for a run that is not ok,
// why (vuser.WriteStatus); then the headline metrics, what they
// count, one row per transaction type, for a sweep the table of levels and, when files
// were placed on tiers, the storage section.
func WriteSummary(w io.Writer, r *Result) {
	vuser.WriteStatus(w, &r.RunResult)
	fmt.Fprintf(w, "TPC-C on %s %s (%s), %d warehouse(s), %s loop, status %s\n", r.Engine.Name, r.Engine.Version, r.Engine.Describe(), r.Warehouses, r.Loop, r.Status)
	fmt.Fprintf(w, "users %d: NOPM %.0f (server: %.0f)  TPM %.0f  TPS %.1f  QPS %.1f\n", r.Users, r.NOPM, r.NOPMServer, r.TPM, r.TPS, r.QPS)
	fmt.Fprintln(w, "NOPM and TPM as HammerDB defines them, counted by tierbench's users (see definitions in result.json)")
	metrics.WriteIOLine(w, r.IO, r.IOError)
	vuser.WriteClientCPULine(w, r.ClientCPU, r.Engine.Mode == engine.Embedded)
	metrics.WriteOpTable(w, "transaction", TxnNames, r.Transactions)
	vuser.WriteFirstErrors(w, TxnNames, r.FirstErrors)
	if len(r.Sweep) > 1 {
		fmt.Fprintln(w, "\nconcurrency sweep (saturation: the fewest users reaching 95% of the best throughput)")
		metrics.WriteSweepTable(w, r.Sweep)
	}
	r.Storage.WriteSummary(w)
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
