package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"tierbench/internal/rundir"
	"tierbench/internal/runreport"
)

func newReportCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "report DIR",
		Short: "Write the HTML report of a run directory (DIR/report.html)",
		Long: `report reads what a run left in its output directory (result.json, and metrics.jsonl
and intervals.jsonl where the run wrote them) and writes DIR/report.html: the status and
headline numbers, the verdict of each window with its evidence and thresholds, charts over
time of throughput, latency, the host, each device, the engine, the processes and each
energy component's watts, the per-window summaries and the energy per component. The
page needs nothing but itself (figures/ beside it holds each chart as PNG and SVG).`,
		Example: `  tierbench oltp run --mix point-select --duration 30s --out runs/ps
  tierbench report runs/ps`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := rundir.HoldsStudy("", dir); err != nil {
				return err
			}
			if err := runreport.IsRunDir(dir); err != nil {
				return err
			}
			// A run going on in DIR would change the files under the report; the
			// report's own files are written under the same lock a run takes.
			lock, err := rundir.Acquire(dir, "tierbench report "+dir)
			if err != nil {
				return err
			}
			defer lock.Release()
			path, notes, err := runreport.Write(dir, runreport.Options{})
			if err != nil {
				return err
			}
			for _, n := range notes {
				fmt.Fprintln(cmd.ErrOrStderr(), "note:", n)
			}
			fmt.Fprintln(cmd.OutOrStdout(), "report:", path)
			return nil
		},
	}
}
