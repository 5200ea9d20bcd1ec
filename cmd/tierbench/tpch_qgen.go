package main

import (
	"github.com/spf13/cobra"

	"tierbench/internal/workload/tpch"
)

func newTPCHQgenCommand() *cobra.Command {
	q := tpch.NewQgenSettings()
	cmd := &cobra.Command{
		Use:   "qgen",
		Short: "Print TPC-H substitution parameters or a stream's queries as executable SQL",
		Example: `  tierbench tpch qgen --sf 1 --seed 101000000 --params
  tierbench tpch qgen --default --params
  tierbench tpch qgen --dialect postgres --sf 1 --seed 101000000 --stream 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return q.Write(cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addParams(cmd, q.Params())
	return cmd
}
