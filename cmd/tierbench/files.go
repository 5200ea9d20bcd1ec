package main

import (
	"github.com/spf13/cobra"

	"tierbench/internal/files"
	"tierbench/internal/workload"
)

func newFilesCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "files",
		Short: "A Postmark-compatible file workload: small files created, read, appended and deleted",
	}
	b := files.NewBenchmark()
	cmd.AddCommand(phaseCommand(&cobra.Command{
		Use:   "run",
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
	}, b, workload.Run, filesSettings, b.Run))
	return cmd
}
