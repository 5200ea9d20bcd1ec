package oltp

import (
	"tierbench/internal/workload"
	"tierbench/internal/workload/vuser"
)

// meta registers the transaction mixes with package workload; listing and showing
// the bundled mixes are commands of their own.
var meta = workload.Meta{
	Name:  "oltp",
	Title: "OLTP mix",
	Short: "Transaction mixes declared in a file: load a population, run the mix",
	Long: `Transaction mixes declared in YAML: the schema, how to populate it, and weighted
transactions of parameterised SQL. Bundled mixes are selected by name (--mix
point-select), your own by path (--mix ./my-mix.yaml); 'oltp show NAME' prints a
bundled mix to start from.

A managed instance or SQLite file lives in OUT/db (or --db) and is kept between
commands: load creates it, run starts it again. Remove OUT/db to reclaim it.`,
	Engine: true, KeepsDatabase: true,
	OutHelp: "directory for results and, unless --db or --dsn, the database (created if missing)",
	OutWhat: "the directory for results (and, by default, the database)",
	Phases: []workload.PhaseMeta{
		{
			Phase: workload.Load,
			Short: "Create a mix's tables and populate them",
			Long: `Create a mix's tables and populate them, in parallel and deterministically for
--seed, then build the secondary indexes and collect statistics. The mix's tables are
dropped first if they exist, also on a server given by --dsn.`,
			Example: `  tierbench oltp load --mix point-select --out runs/ps-sqlite
  tierbench oltp load --engine postgres --mix policy --scale 10 --out runs/policy-pg
  tierbench oltp load --mix ./my-mix.yaml --out runs/mine`,
			Estimates: true, Sections: true,
		},
		{
			Phase: workload.Run,
			Short: "Run a mix with virtual users and report TPS, QPS and latencies per transaction",
			Example: `  tierbench oltp run --mix point-select --users 4 --duration 1m --out runs/ps-sqlite
  tierbench oltp run --engine postgres --mix policy --users 5,50,500 --ramp 30s --duration 2m --out runs/policy-pg
  tierbench oltp run --engine mysql --mix ecommerce --rate 500 --users 32 --duration 5m --out runs/shop-my`,
			Estimates: true, Sections: true,
		},
	},
	New: func() workload.Workload { return New() },
	Result: workload.ResultMeta{
		// The mix's results were "oltp-mix" before the workload had one name.
		Benchmarks: []string{"oltp", "oltp-mix"},
		New:        func() workload.Result { return &Result{} },
		Headline:   vuser.Headline(Definitions),
	},
}

func init() { workload.Register(meta) }

// Meta describes the mixes.
func (b *Workload) Meta() workload.Meta { return meta }
