package main

import (
	"github.com/spf13/cobra"

	"tierbench/internal/emulator"
)

func newDeviceCalibrateCommand() *cobra.Command {
	c := emulator.NewCalibrateSettings()
	cmd := &cobra.Command{
		Use:   "calibrate --profile P",
		Short: "Measure how closely an emulated device follows its model on this host",
		Long: `Run fio-like probes through an emulated device whose every request takes the time
the device model says: random 8 KiB reads and writes at queue depth 1 and 32,
sequential 1 MiB reads and writes, and 8 KiB write + fsync commits. Each probe runs on a
fresh device and is compared with the same requests run through the model in virtual
time; the error is what real-time emulation on this host adds or loses.

--emulator says which path the probes take: preload (the shared-memory ring that
PostgreSQL's and MariaDB's LD_PRELOAD shim and SQLite's VFS use, called from this
process) or fuse (a FUSE mount, as any program sees it); auto, the default as for runs,
is preload. The output names the path it measured.

It also measures the path's own latency floor (a 4 KiB read with no model) and the
most requests per second it passes. A device faster than the floor cannot be emulated
in real time here: record a trace on a slower device and use 'tierbench device replay'.`,
		Example: `  tierbench device calibrate --profile nvme
  tierbench device calibrate --profile hdd-7200 --emulator fuse
  tierbench device calibrate --profile sata-ssd --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.Run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addParams(cmd, c.Params())
	return cmd
}
