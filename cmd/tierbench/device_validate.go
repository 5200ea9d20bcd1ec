package main

import (
	"github.com/spf13/cobra"

	"tierbench/internal/twin"
)

func newDeviceValidateCommand() *cobra.Command {
	v := twin.NewValidateSettings()
	cmd := &cobra.Command{
		Use:   "validate DIR",
		Short: "Run the same database workloads on a real device and on its twin, and compare",
		Long: `Run database workloads with their files under DIR (the real device) and on the
emulated profile (the twin fitted for DIR's device by default), alternating, several
rounds each: the OLTP policy mix on SQLite, PostgreSQL and MariaDB with data that does
not fit the buffer, and TPC-H on PostgreSQL. Then print, per workload and metric (TPS,
p50/p95/p99 latency, the device's reads and writes per transaction, QphH), the real
figure, the emulated one, the error, and the spreads that say whether the error can be
told from the device's own run-to-run variation.

The emulated side runs the profile behind a page cache model as large as the host's
available memory, and its files live on /dev/shm; every run of the real side starts
with its database's pages dropped from the page cache, as the model starts empty.`,
		Example: `  tierbench device validate /srv/db
  tierbench device validate /srv/db --profile nvme --cases oltp-postgres --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return v.Run(cmd.Context(), args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addParams(cmd, v.Params())
	return cmd
}
