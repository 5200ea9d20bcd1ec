package main

import (
	"github.com/spf13/cobra"

	"tierbench/internal/oltp/tpcc"
	"tierbench/internal/workload"
)

func newTPCCCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tpcc",
		Short: "TPC-C: load a population, run the five-transaction mix, check consistency",
		Long: `TPC-C (revision 5.11) on SQLite, PostgreSQL and MariaDB/MySQL.

A managed instance or SQLite file lives in OUT/db (or --db) and is kept between
commands: load creates it, run and check start it again. Remove OUT/db to reclaim it.`,
	}
	b := tpcc.NewBenchmark()
	checkSettings := keptSettings
	checkSettings.Estimates, checkSettings.Sections = false, false
	cmd.AddCommand(
		phaseCommand(&cobra.Command{
			Use:   "load",
			Short: "Create the TPC-C tables and load W warehouses (clause 4.3)",
			Long: `Create the TPC-C tables and load W warehouses (clause 4.3), in parallel and
deterministically for --seed. Existing TPC-C tables (warehouse, district, customer,
history, orders, new_order, order_line, item, stock) are dropped first, also on a
server given by --dsn.`,
			Example: `  tierbench tpcc load --warehouses 1 --out runs/tpcc-sqlite
  tierbench tpcc load --engine postgres --warehouses 10 --out runs/tpcc-pg`,
		}, b, workload.Load, keptSettings, b.Load),
		phaseCommand(&cobra.Command{
			Use:   "run",
			Short: "Run the TPC-C mix with virtual users and report NOPM, TPM and latencies",
			Example: `  tierbench tpcc run --users 4 --ramp 10s --duration 1m --out runs/tpcc-sqlite
  tierbench tpcc run --engine postgres --users 1,2,4,8,16 --duration 2m --out runs/tpcc-pg
  tierbench tpcc run --engine mysql --rate 200 --users 16 --duration 5m --out runs/tpcc-my`,
		}, b, workload.Run, keptSettings, b.Run),
		phaseCommand(&cobra.Command{
			Use:   "check",
			Short: "Check the twelve consistency conditions of clause 3.3.2 (exit status 3 when one fails)",
		}, b, workload.Check, checkSettings, b.Check),
	)
	return cmd
}
