package tpcc

import (
	"tierbench/internal/result"
	"tierbench/internal/workload"
	"tierbench/internal/workload/vuser"
)

// meta registers TPC-C with package workload.
var meta = workload.Meta{
	Name:  "tpcc",
	Title: "TPC-C",
	Short: "TPC-C: load a population, run the five-transaction mix, check consistency",
	Long: `TPC-C (revision 5.11) on SQLite, PostgreSQL and MariaDB/MySQL.

A managed instance or SQLite file lives in OUT/db (or --db) and is kept between
commands: load creates it, run and check start it again. Remove OUT/db to reclaim it.`,
	Engine: true, KeepsDatabase: true,
	OutHelp: "directory for results and, unless --db or --dsn, the database (created if missing)",
	OutWhat: "the directory for results (and, by default, the database)",
	Phases: []workload.PhaseMeta{
		{
			Phase: workload.Load,
			Short: "Create the TPC-C tables and load W warehouses (clause 4.3)",
			Long: `Create the TPC-C tables and load W warehouses (clause 4.3), in parallel and
deterministically for --seed. Existing TPC-C tables (warehouse, district, customer,
history, orders, new_order, order_line, item, stock) are dropped first, also on a
server given by --dsn.`,
			Example: `  tierbench tpcc load --warehouses 1 --out runs/tpcc-sqlite
  tierbench tpcc load --engine postgres --warehouses 10 --out runs/tpcc-pg`,
			Estimates: true, Sections: true,
		},
		{
			Phase: workload.Run,
			Short: "Run the TPC-C mix with virtual users and report NOPM, TPM and latencies",
			Example: `  tierbench tpcc run --users 4 --ramp 10s --duration 1m --out runs/tpcc-sqlite
  tierbench tpcc run --engine postgres --users 1,2,4,8,16 --duration 2m --out runs/tpcc-pg
  tierbench tpcc run --engine mysql --rate 200 --users 16 --duration 5m --out runs/tpcc-my`,
			Estimates: true, Sections: true,
		},
		{
			Phase: workload.Check,
			Short: "Check the twelve consistency conditions of clause 3.3.2 (exit status 3 when one fails)",
		},
	},
	New: func() workload.Workload { return New() },
	Result: workload.ResultMeta{
		Benchmarks: []string{"tpcc"},
		New:        func() workload.Result { return &Result{} },
		Headline:   append([]workload.MetricInfo{nopm, tpm}, vuser.Headline(Definitions)...),
	},
}

// TPC-C's own headline metrics, beside TPS and QPS of every run of virtual users.
var (
	nopm = workload.MetricInfo{Name: "nopm", Title: "NOPM", Unit: "new orders/min", Better: result.HigherIsBetter, What: Definitions["nopm"]}
	tpm  = workload.MetricInfo{Name: "tpm", Title: "TPM", Unit: "transactions/min", Better: result.HigherIsBetter, What: Definitions["tpm"]}
)

func init() { workload.Register(meta) }

// Meta describes TPC-C.
func (b *Workload) Meta() workload.Meta { return meta }

// HeadlineMetrics are NOPM, TPM, TPS and QPS of the headline level.
func (r *Result) HeadlineMetrics() []result.Metric {
	return append([]result.Metric{nopm.Of(r.NOPM), tpm.Of(r.TPM)}, r.RunResult.HeadlineMetrics()...)
}
