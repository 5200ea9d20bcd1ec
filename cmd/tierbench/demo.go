package main

import (
	"os"

	"github.com/spf13/cobra"

	"tierbench/internal/demo"
	"tierbench/internal/lifecycle"
	"tierbench/internal/progress"
)

func newDemoCommand() *cobra.Command {
	s := demo.NewSettings()
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "TPC-H on SQLite on an emulated 7,200 rpm disk, a SATA SSD, an NVMe SSD and a DRAM SSD, in one table",
		Long: `Run TPC-H at SF 0.01 on embedded SQLite four times, each on an emulated device
(hdd-7200, sata-ssd, nvme and dram-ssd), and print one table: QphH@Size and its
unrounded twin, load time, the device's IOPS and utilisation, and its energy per query.

Every run has the same qgen seed, SQLite cache and page cache model in front of the
device (the emulated machine's RAM), so the device is what differs. The runs take a
minute or two in all on a small machine. With --emulator fuse, a device faster than
this host's FUSE round trip (dram-ssd and nvme on most virtual machines) is replaced by
the next fastest one, and the table says so.`,
		Example: `  tierbench demo
  tierbench demo --json
  tierbench demo --out runs/demo        # keeps runs/demo/<device>/result.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := demo.Output{Stdout: cmd.OutOrStdout(), Log: cmd.ErrOrStderr(), Command: lifecycle.CommandLine(os.Args)}
			if progress.IsTerminal(os.Stderr) {
				out.Progress = os.Stderr
			}
			return s.Run(cmd.Context(), out)
		},
	}
	addParams(cmd, s.Params())
	return cmd
}
