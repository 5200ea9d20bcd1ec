package main

import (
	"github.com/spf13/cobra"

	"tierbench/internal/twin"
)

func newDeviceFitCommand() *cobra.Command {
	f := twin.NewFitSettings()
	cmd := &cobra.Command{
		Use:   "fit DIR",
		Short: "Measure the device under a directory and write a profile that emulates it (a twin)",
		Long: `Measure the device that holds DIR with O_DIRECT probes on a working set there
(random 8 KiB reads and writes at queue depth 1 and 32, reads at 128, a writeback
of scattered blocks, a 70/30 mix, sequential 1 MiB reads and writes, fdatasync),
preconditioned and repeated in rounds, and write a profile of the measured class
whose every field names the probe it came from. The file's header says where and
when, and how well the model reproduces each probe.

The profile goes to --out, by default into the user directory that every command
reads, so that 'tierbench oltp run --data twin-vda' or a study emulates the device.`,
		Example: `  tierbench device fit /srv/db
  tierbench device fit /mnt/volume --size 1GiB --out volume.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.Run(cmd.Context(), args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addParams(cmd, f.Params())
	return cmd
}
