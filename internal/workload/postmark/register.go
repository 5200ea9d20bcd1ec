package postmark

import (
	"tierbench/internal/result"
	"tierbench/internal/workload"
)

// meta registers the file workload with package workload: it needs no engine, only a
// directory, on the data tier.
var meta = workload.Meta{
	Name:    "files",
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
		Example: `  tierbench files run --dir /srv/test --preset medium --out runs/files-medium
  tierbench files run --data 'pagecache(hdd-7200,size=256MiB)' --preset low --out runs/files-hdd
  tierbench files run --dir /srv/test --files 1000 --transactions 20000 --size-min 500 --size-max 10000 --out runs/pm
  tierbench files run --dir /srv/test --preset non-load --idle 5m --out runs/idle`,
		Estimates: true, Sections: true,
	}},
	New: func() workload.Workload { return New() },
}

func init() { workload.Register(meta) }

// Meta describes the file workload.
func (b *Workload) Meta() workload.Meta { return meta }

// HeadlineMetrics are Postmark's transactions per second, the data rates and the
// total time.
func (r *Result) HeadlineMetrics() []result.Metric {
	return []result.Metric{
		{Name: "transactions_per_s", Value: r.Rates.TransactionsPerS, Unit: "transactions/s", Better: result.HigherIsBetter},
		{Name: "read_mb_s", Value: r.Rates.ReadMBs, Unit: "MB/s", Better: result.HigherIsBetter},
		{Name: "written_mb_s", Value: r.Rates.WrittenMBs, Unit: "MB/s", Better: result.HigherIsBetter},
		{Name: "elapsed_s", Value: r.ElapsedS, Unit: "s", Better: result.LowerIsBetter},
	}
}

// RunStatus is the run's status and error.
func (r *Result) RunStatus() (result.Status, string) { return r.Status, r.Error }
