package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"tierbench/internal/lifecycle"
	"tierbench/internal/params"
	"tierbench/internal/progress"
	"tierbench/internal/workload"
)

// benchmark is a workload's phases as the lifecycle runs them.
type benchmark interface {
	Params(workload.Phase) *params.Set
	Prepare(workload.Phase) (workload.Request, error)
}

// phaseCommand makes cmd run one phase of b through the run lifecycle: its flags are
// the phase's parameters and the run settings opts gives; it prepares the phase,
// starts the run, runs the phase and finishes the run.
func phaseCommand(cmd *cobra.Command, b benchmark, phase workload.Phase, opts lifecycle.Options,
	run func(context.Context, workload.Env) (*workload.Report, error)) *cobra.Command {
	settings := lifecycle.NewSettings(opts)
	for _, set := range []*params.Set{b.Params(phase), settings.Params()} {
		cmd.Flags().AddFlagSet(set.FlagSet())
		for _, p := range set.Params() {
			if p.Required {
				_ = cmd.MarkFlagRequired(p.Name)
			}
		}
	}
	cmd.Args = cobra.NoArgs
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		req, err := b.Prepare(phase)
		if err != nil {
			return err
		}
		out := lifecycle.IO{Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), Command: lifecycle.CommandLine(os.Args)}
		if progress.IsTerminal(os.Stderr) {
			out.Progress = os.Stderr
		}
		r, err := lifecycle.Start(cmd.Context(), settings, req, out)
		if err != nil {
			return err
		}
		rep, err := run(cmd.Context(), r)
		return r.Finish(rep, err)
	}
	return cmd
}

// The settings of the workloads' commands.
var (
	tpchSettings = lifecycle.Options{Engine: true, Estimates: true, Sections: true,
		OutHelp: "directory for result.json (created if missing)", OutWhat: "the directory for result.json (and, by default, the database)"}
	// TPC-C and the mixes always keep their database: load, run and check work on
	// the same one.
	keptSettings = lifecycle.Options{Engine: true, KeepDatabase: true, Estimates: true, Sections: true,
		OutHelp: "directory for results and, unless --db or --dsn, the database (created if missing)",
		OutWhat: "the directory for results (and, by default, the database)"}
	filesSettings = lifecycle.Options{Estimates: true, Sections: true,
		OutHelp: "output directory for result.json", OutWhat: "the directory for result.json"}
)
