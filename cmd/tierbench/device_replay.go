package main

import (
	"github.com/spf13/cobra"

	"tierbench/internal/emulator"
)

func newDeviceReplayCommand() *cobra.Command {
	r := emulator.NewReplaySettings()
	cmd := &cobra.Command{
		Use:   "replay --trace FILE --profile P",
		Short: "Replay a recorded I/O trace through a device model offline",
		Long: `Replay an I/O trace recorded through an emulated device (every request with its
time, operation, offset, size and file) through a fresh model of any profile, and print
the I/O time that device would have spent: the sum of request latencies, its busy time
and counters. Requests are submitted at their recorded times (open loop), so this is
how devices too fast to emulate in real time on this host are compared.

Every record is checked (operation, flags, time order, offset and size within what a
device is asked), and so is each block's checksum and the end marker: a damaged trace
is refused with the record and byte at fault. A trace that ends early (a recording
stopped by a killed emulator, a copy cut short) is refused too, unless --partial.`,
		Example: `  tierbench device replay --trace run1-data.trace --profile nvme
  tierbench device replay --trace run1-data.trace --profile 'san(dram-ssd,link=8gfc)' --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return r.Run(cmd.Context(), cmd.OutOrStdout())
		},
	}
	addParams(cmd, r.Params())
	return cmd
}
