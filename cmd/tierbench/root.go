package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"tierbench/internal/params"

	"github.com/spf13/cobra"
)

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "tierbench",
		Short: "Database benchmarks on real engines over real or emulated storage",
		Long: `tierbench runs standard database workloads (TPC-H, TPC-C and transaction mixes
declared in YAML) on embedded SQLite, PostgreSQL and MariaDB/MySQL, with the database's
files on real directories or emulated devices, and reports the spec's metrics, the
devices' counters and their energy with everything needed to recompute them.

Start with 'tierbench demo'.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// A value parsed as it is set names its flag in its error (params.ValueError);
	// pflag's own "invalid argument ... for ... flag" would name it twice. Subcommands
	// inherit this.
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return params.FlagError(err) })
	// --cpu-profile is for tierbench's developers: where does the client's CPU go
	// (scripts/overhead compares it with pgbench and sysbench).
	var cpuProfile string
	var profFile *os.File
	dev := params.NewSet("tierbench")
	dev.String(&cpuProfile, "cpu-profile", "", params.String, "write a Go CPU profile of this command to FILE").Hide()
	root.PersistentFlags().AddFlagSet(dev.FlagSet())
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if cpuProfile == "" {
			return nil
		}
		f, err := os.Create(cpuProfile)
		if err != nil {
			return fmt.Errorf("--cpu-profile: %w", err)
		}
		profFile = f
		return pprof.StartCPUProfile(f)
	}
	cobra.OnFinalize(func() {
		if profFile != nil {
			pprof.StopCPUProfile()
			profFile.Close()
		}
	})
	root.AddCommand(newDemoCommand(), newDeviceCommand(), newReportCommand(), newStudyCommand())
	root.AddCommand(newWorkloadCommands(map[string][]*cobra.Command{
		"tpch": {newTPCHGenCommand(), newTPCHQgenCommand()},
		"oltp": {newOLTPMixesCommand(), newOLTPShowCommand()},
	})...)
	return root
}
