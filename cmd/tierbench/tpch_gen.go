package main

import (
	"github.com/spf13/cobra"

	"tierbench/internal/workload/tpch"
)

func newTPCHGenCommand() *cobra.Command {
	g := tpch.NewGenSettings()
	cmd := &cobra.Command{
		Use:   "gen",
		Short: "Generate TPC-H data files byte-identical to dbgen 2.17.3",
		Example: `  tierbench tpch gen --sf 1 --out /data/tpch-sf1
  tierbench tpch gen --sf 10 --out part3 --chunks 4 --step 3
  tierbench tpch gen --sf 1 --out upd --tables orders --updates 3
  tierbench tpch gen --sf 100 --out upd --update-set 75`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.Write(cmd.Context(), cmd.OutOrStdout())
		},
	}
	addParams(cmd, g.Params())
	return cmd
}
