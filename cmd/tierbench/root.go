package main

import (
	"github.com/spf13/cobra"
)

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "tierbench",
		Short: "Database benchmarks on real engines over real or emulated storage",
		Long: `tierbench runs standard database workloads (TPC-H now; TPC-C and declared
transaction mixes next) on embedded SQLite, PostgreSQL and MariaDB/MySQL, and reports
the spec's metrics with everything needed to recompute them.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newDemoCommand(), newTPCHCommand(), newTPCCCommand(), newDeviceCommand())
	root.AddCommand(newOLTPCommand())
	return root
}

func newTPCHCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tpch",
		Short: "TPC-H: data generator, query generator and the load/power/throughput run",
	}
	cmd.AddCommand(newTPCHGenCommand(), newTPCHQgenCommand(), newTPCHRunCommand())
	return cmd
}
