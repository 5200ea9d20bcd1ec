package main

import (
	"os"

	"github.com/spf13/cobra"

	_ "tierbench/internal/engine/mysql"
	_ "tierbench/internal/engine/postgres"
	_ "tierbench/internal/engine/sqlite"
	"tierbench/internal/lifecycle"
	"tierbench/internal/params"
	"tierbench/internal/progress"
	"tierbench/internal/study"
	"tierbench/internal/workload"
	_ "tierbench/internal/workload/all"
)

// newWorkloadCommands are the registered workloads' commands, a command per workload
// with one per phase (tpcc load|run|check), and the tool commands a workload has
// beside its phases (tpch gen and qgen, oltp mixes and show).
func newWorkloadCommands(tools map[string][]*cobra.Command) []*cobra.Command {
	var cmds []*cobra.Command
	for _, name := range workload.Names() {
		m, _ := workload.Get(name)
		cmd := &cobra.Command{Use: m.Name, Aliases: m.Aliases, Short: m.Short, Long: m.Long}
		for _, pm := range m.Phases {
			cmd.AddCommand(newPhaseCommand(m, pm))
		}
		cmd.AddCommand(tools[name]...)
		cmds = append(cmds, cmd)
	}
	return cmds
}

// newPhaseCommand is the command of one phase: its flags are the parameters of a
// lifecycle job of that phase (its own and the run settings), which runs with what
// they parsed, as a study's cell does.
func newPhaseCommand(m workload.Meta, pm workload.PhaseMeta) *cobra.Command {
	cmd := &cobra.Command{Use: string(pm.Phase), Short: pm.Short, Long: pm.Long, Example: pm.Example, Args: cobra.NoArgs}
	job, err := lifecycle.NewJob(lifecycle.Spec{Workload: m.Name, Phases: []workload.Phase{pm.Phase}})
	if err != nil { // the registry's own workload and phase: cannot happen
		cmd.RunE = func(*cobra.Command, []string) error { return err }
		return cmd
	}
	// A study runs each phase as this command and reads how it ended from --outcome.
	var outcome string
	forStudy := params.NewSet(m.Name + " " + string(pm.Phase))
	forStudy.String(&outcome, study.OutcomeFlag, "", params.String, "write how the command ended (status, headline metrics) as JSON to FILE, for a study").Hide()
	addParams(cmd, append(job.Params(), forStudy)...)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		out := lifecycle.IO{Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), Command: lifecycle.CommandLine(os.Args)}
		if progress.IsTerminal(os.Stderr) {
			out.Progress = os.Stderr
		}
		o, err := job.Execute(cmd.Context(), out)
		if outcome != "" {
			if werr := study.WriteOutcome(outcome, pm.Phase, o, err); werr != nil && err == nil {
				err = werr
			}
		}
		return err
	}
	return cmd
}
