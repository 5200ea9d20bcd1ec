package postmark

import (
	"tierbench/internal/result"
	"tierbench/internal/workload"
)

// meta registers the file workload with package workload: it needs no engine, only a
// directory, on the data tier.
var meta = workload.Meta{
	Name:  "postmark",
	Title: "Postmark-compatible file workload",
	// The workload's command was files before it had one name.
	Aliases: []string{"files"},
	Short:   "A Postmark-compatible file workload: small files created, read, appended and deleted",
	OutHelp: "output directory for result.json",
	OutWhat: "the directory for result.json",
	Phases: []workload.PhaseMeta{{
		Phase: workload.Run,
		Short: "Run Postmark 1.5's workload in a directory: a pool of files, then transactions",
		Long: `Runs Postmark 1.5's workload: a pool of files with sizes in a range, spread over
subdirectories, then transactions that each read or append to a file and create or
delete one (with Postmark's biases), then the deletion of every file left. The same
parameters and seed give the same operations as Debian's postmark.

The files live in a new directory inside the data tier (--data: an emulated device
such as sata-ssd, or a directory; --dir is a directory), removed at the end. Parameters
not given come from --preset, or else from Postmark's defaults. The result goes to
OUT/result.json.`,
		Example: `  tierbench postmark run --dir /srv/test --preset medium --out runs/postmark-medium
  tierbench postmark run --data 'pagecache(hdd-7200,size=256MiB)' --preset low --out runs/postmark-hdd
  tierbench postmark run --dir /srv/test --files 1000 --transactions 20000 --size-min 500 --size-max 10000 --out runs/pm
  tierbench postmark run --dir /srv/test --preset non-load --idle 5m --out runs/idle`,
		Estimates: true, Sections: true,
	}},
	New: func() workload.Workload { return New() },
	Result: workload.ResultMeta{
		Benchmarks: []string{"postmark", "files"},
		New:        func() workload.Result { return &Result{} },
		Headline:   []workload.MetricInfo{transactionsPerS, readMBs, writtenMBs, elapsedS},
	},
}

// The headline metrics, as Postmark's report has them (definitions says what each
// counts).
var (
	transactionsPerS = workload.MetricInfo{Name: "transactions_per_s", Title: "transaction rate", Unit: "transactions/s", Better: result.HigherIsBetter, What: definitions["transactions_per_s"]}
	readMBs          = workload.MetricInfo{Name: "read_mb_s", Title: "data read", Unit: "MB/s", Better: result.HigherIsBetter, What: definitions["read_mb_s"]}
	writtenMBs       = workload.MetricInfo{Name: "written_mb_s", Title: "data written", Unit: "MB/s", Better: result.HigherIsBetter, What: definitions["written_mb_s"]}
	elapsedS         = workload.MetricInfo{Name: "elapsed_s", Title: "elapsed time", Unit: "s", Better: result.LowerIsBetter, What: definitions["elapsed_s"]}
)

func init() { workload.Register(meta) }

// Meta describes the file workload.
func (b *Workload) Meta() workload.Meta { return meta }

// HeadlineMetrics are Postmark's transactions per second, the data rates and the
// total time.
func (r *Result) HeadlineMetrics() []result.Metric {
	return []result.Metric{transactionsPerS.Of(r.Rates.TransactionsPerS), readMBs.Of(r.Rates.ReadMBs),
		writtenMBs.Of(r.Rates.WrittenMBs), elapsedS.Of(r.ElapsedS)}
}

// RunStatus is the run's status and error.
func (r *Result) RunStatus() (result.Status, string) { return r.Status, r.Error }
