package main

import (
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"tierbench/internal/lifecycle"
	"tierbench/internal/progress"
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
	cmd.AddCommand(newStudyRunCommand(), newStudyTasksCommand(), newStudyReportCommand(), newStudyCompareCommand(), newStudyListCommand(), newStudyShowCommand())
	return cmd
}

func newStudyRunCommand() *cobra.Command {
	s := study.NewRunSettings()
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
  tierbench study run my-study.yaml --out runs/mine-2 --shard 2/2   # on another
  tierbench study run my-study.yaml --out /shared/mine --task $SLURM_ARRAY_TASK_ID   # one run per array index`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return s.Run(cmd.Context(), args[0], studyOutput(cmd))
		},
	}
	addParams(cmd, s.Params())
	return cmd
}

// studyOutput is where a study command writes, and what runs a phase of a study's run.
func studyOutput(cmd *cobra.Command) study.Output {
	out := study.Output{Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), Command: lifecycle.CommandLine(os.Args), Child: studyChild}
	if progress.IsTerminal(os.Stderr) {
		out.Progress = os.Stderr
	}
	return out
}

func newStudyTasksCommand() *cobra.Command {
	s := study.NewTasksSettings()
	cmd := &cobra.Command{
		Use:   "tasks FILE|NAME",
		Short: "List a study's runs numbered as tasks, for an array job: 'study run --task I' runs one",
		Long: `Numbers the study's (cell, repetition) runs from 0, block by block (each repetition
of each baseline group), the numbers 'study run --task I' and '--tasks A-B' take. With
--hosts N it also says which tasks each of N machines runs blocked by host, so that
each compares every cell with its baseline itself (docs/cluster.md).`,
		Example: `  tierbench study tasks smoke --size quick
  tierbench study tasks my-study.yaml --hosts 4
  tierbench study tasks my-study.yaml --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return s.Run(args[0], cmd.OutOrStdout())
		},
	}
	addParams(cmd, s.Params())
	return cmd
}

func newStudyReportCommand() *cobra.Command {
	s := study.NewReportSettings()
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
			return s.Run(args, studyOutput(cmd))
		},
	}
	addParams(cmd, s.Params())
	return cmd
}

func newStudyCompareCommand() *cobra.Command {
	s := study.NewCompareSettings()
	cmd := &cobra.Command{
		Use:   "compare BASE NEW",
		Short: "Compare two studies (or two runs of one) cell by cell: base vs new, % difference, significance",
		Long: `Compares the cells two study directories have in common (the same cell ID), metric by
metric: the means of BASE and NEW, the % difference and whether it is significant
(Welch's t-test at 5%). With --out it also writes report.html with a chart per metric.`,
		Example: `  tierbench study compare runs/before runs/after`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return s.Run(args[0], args[1], studyOutput(cmd))
		},
	}
	addParams(cmd, s.Params())
	return cmd
}

func newStudyListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the bundled studies",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return study.WriteBundled(cmd.OutOrStdout())
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
