package main

import (
	"github.com/spf13/cobra"

	_ "tierbench/internal/engine/mysql"
	_ "tierbench/internal/engine/postgres"
	_ "tierbench/internal/engine/sqlite"
	"tierbench/internal/tpch"
	"tierbench/internal/workload"
)

func newTPCHRunCommand() *cobra.Command {
	b := tpch.NewBenchmark()
	return phaseCommand(&cobra.Command{
		Use:   "run",
		Short: "Run the TPC-H load, power and throughput tests and report the official metrics",
		Example: `  tierbench tpch run --sf 0.1 --out runs/sqlite-sf0.1
  tierbench tpch run --engine postgres --buffer 1GB --sf 1 --validate --out runs/pg-sf1
  tierbench tpch run --engine mysql --dsn 'bench@tcp(127.0.0.1:3306)/tpch' --sf 1 --out runs/ext`,
	}, b, workload.Run, tpchSettings, b.Run)
}
