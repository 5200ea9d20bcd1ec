package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"tierbench/internal/lifecycle"
	"tierbench/internal/progress"
	"tierbench/internal/rundir"
	"tierbench/internal/study"
)

// studyChild makes the process that runs one phase of a study's run (nil: this
// executable); tests make it the test binary acting as tierbench.
var studyChild func(args []string) *exec.Cmd

func newStudyCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "study",
		Short: "Studies: a matrix of configurations run, repeated, resumed and reported with charts",
		Long: `A study file (YAML) declares a workload, its fixed parameters and factors (any
parameter or run setting, with a list of values), how they combine (cross product,
zip groups, exclude rules), repetitions, order, a baseline and a timeout. 'study run'
runs every cell in OUT/cells/CELL/rep-N, resumes where it stopped, and writes
report.html with figures, cells.csv and summary.json. Bundled studies run by name.`,
	}
	cmd.AddCommand(newStudyRunCommand(), newStudyReportCommand(), newStudyCompareCommand(), newStudyListCommand(), newStudyShowCommand())
	return cmd
}

func newStudyRunCommand() *cobra.Command {
	var out, size, shard string
	var dryRun, retryFailed bool
	cmd := &cobra.Command{
		Use:   "run FILE|NAME",
		Short: "Run a study: plan, validate every cell, run them (resuming), report",
		Long: `Prints the plan, validates every cell before anything starts, then runs each
(cell, repetition) as the tierbench commands of its phases in OUT/cells/CELL/rep-N,
each with its own result.json, stdout.log and stderr.log. Running it again skips
finished runs (--retry-failed reruns failed ones); Ctrl-C stops the run in progress
and keeps every finished one. The report is written to OUT at the end.`,
		Example: `  tierbench study run smoke --size quick --out runs/smoke
  tierbench study run my-study.yaml --out runs/mine --dry-run
  tierbench study run my-study.yaml --out runs/mine-1 --shard 1/2   # on one machine
  tierbench study run my-study.yaml --out runs/mine-2 --shard 2/2   # on another`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sh, err := study.ParseShard(shard)
			if err != nil {
				return err
			}
			if out == "" && !dryRun {
				return fmt.Errorf("--out is required: the directory for the study's runs and report")
			}
			f, err := study.Open(args[0])
			if err != nil {
				return err
			}
			s, err := f.At(size)
			if err != nil {
				return err
			}
			plan, err := study.Expand(s)
			if err != nil {
				return err
			}
			if out == "" {
				out = "OUT"
			}
			r := &study.Runner{Plan: plan, Out: out, Shard: sh, RetryFailed: retryFailed, Stdout: cmd.OutOrStdout(),
				Lock: lifecycle.CommandLine(os.Args), Command: studyChild}
			if progress.IsTerminal(os.Stderr) {
				r.Progress = os.Stderr
			}
			if dryRun {
				return r.DryRun()
			}
			tally, err := r.Run(cmd.Context())
			if err != nil {
				return err
			}
			if tally.Interrupted {
				return fmt.Errorf("interrupted: the %d runs that finished are kept in %s; run the same command again to resume: %w",
					tally.Finished+tally.OK+tally.Failed, out, context.Canceled)
			}
			if err := writeStudyReport(cmd, []string{out}, out); err != nil {
				return err
			}
			if tally.Failed > 0 {
				return fmt.Errorf("%d of %d runs failed, each recorded in its cell.json (first: %s): fix the cause and run again with --retry-failed",
					tally.Failed, tally.Runs, tally.Failures[0])
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&out, "out", "", "directory for the study: OUT/cells/CELL/rep-N, study.json and the report")
	fl.StringVar(&size, "size", "", "a size the study file defines, e.g. quick (default: the file's own values)")
	fl.BoolVar(&dryRun, "dry-run", false, "print the plan and every cell with its commands, validate them, run nothing")
	fl.StringVar(&shard, "shard", "", "run the cells of index K-1 modulo N only (K/N, e.g. 1/2), to spread a study over N machines; merge with 'study report'")
	fl.BoolVar(&retryFailed, "retry-failed", false, "run failed runs again (finished ones are always skipped)")
	return cmd
}

func newStudyReportCommand() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "report DIR...",
		Short: "Write a study's report: report.html, figures, cells.csv, summary.json",
		Long: `Reads the study in DIR (a 'study run --out'), or in the directories of its shards,
merged, and writes report.html (self-contained, opens offline), figures/*.png and
.svg, cells.csv and summary.json into --out (default: DIR, when there is one).`,
		Example: `  tierbench study report runs/smoke
  tierbench study report runs/mine-1 runs/mine-2 --out runs/mine`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				if len(args) > 1 {
					return fmt.Errorf("--out is required with several directories: where the merged report goes")
				}
				out = args[0]
			}
			return writeStudyReport(cmd, args, out)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory for the report (default: DIR, when there is one)")
	return cmd
}

// writeStudyReport writes the report of the study in dirs into out.
func writeStudyReport(cmd *cobra.Command, dirs []string, out string) error {
	res, err := study.Load(dirs...)
	if err != nil {
		return err
	}
	rep, err := study.BuildReport(res)
	if err != nil {
		return err
	}
	if err := rundir.EnsureWritable("--out", out); err != nil {
		return err
	}
	// The same lock a study run and `tierbench report` take: a study running in out
	// would write its own report there, and a second one must not start meanwhile.
	lock, err := rundir.Acquire(out, lifecycle.CommandLine(os.Args))
	if err != nil {
		return fmt.Errorf("--out %w", err)
	}
	defer lock.Release()
	if err := rep.Write(out); err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: %s\n", n)
	}
	for _, f := range rep.Findings() {
		fmt.Fprintln(cmd.OutOrStdout(), f)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "report: %s (figures in %s, numbers in %s and %s)\n", filepath.Join(out, rundir.ReportFile),
		filepath.Join(out, rundir.FiguresDir), study.CellsCSVFile, study.SummaryFile)
	return nil
}

func newStudyCompareCommand() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "compare BASE NEW",
		Short: "Compare two studies (or two runs of one) cell by cell: base vs new, % difference, significance",
		Long: `Compares the cells two study directories have in common (the same cell ID), metric by
metric: the means of BASE and NEW, the % difference and whether it is significant
(Welch's t-test at 5%). With --out it also writes report.html with a chart per metric.`,
		Example: `  tierbench study compare runs/before runs/after`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			base, err := study.Load(args[0])
			if err != nil {
				return err
			}
			next, err := study.Load(args[1])
			if err != nil {
				return err
			}
			cmp, err := study.Compare(base, next)
			if err != nil {
				return err
			}
			cmp.WriteText(cmd.OutOrStdout())
			if out == "" {
				return nil
			}
			if err := rundir.EnsureWritable("--out", out); err != nil {
				return err
			}
			if err := cmp.Doc.Write(out); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s\n", filepath.Join(out, rundir.ReportFile))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "also write report.html and figures of the comparison here")
	return cmd
}

func newStudyListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the bundled studies",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, name := range study.Bundled() {
				f, err := study.Open(name)
				if err != nil {
					return err
				}
				sizes := ""
				if len(f.Sizes) > 0 {
					sizes = " (sizes: " + strings.Join(f.SizeNames(), ", ") + ")"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%-18s %s%s\n", name, f.Description, sizes)
			}
			return nil
		},
	}
}

func newStudyShowCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "show NAME",
		Short:   "Print a bundled study's file, to copy and edit",
		Example: `  tierbench study show smoke > my-study.yaml`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := study.BundledSource(args[0])
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(data)
			return err
		},
	}
}
