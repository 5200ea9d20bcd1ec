package main

import (
	"github.com/spf13/cobra"

	"tierbench/internal/device"
	"tierbench/internal/params"
)

func newDeviceShowCommand() *cobra.Command {
	var (
		paths  []string
		asJSON bool
	)
	set := params.NewSet("device show")
	set.List(&paths, "profiles", device.ProfilesHelp)
	set.Bool(&asJSON, "json", false, "print JSON instead of text")
	cmd := &cobra.Command{
		Use:   "show SPEC",
		Short: "Show a device profile or spec: every field with its source, its caps and model figures",
		Long: `Show one device profile or spec with the spec's fields applied: every field of its
profile with its value and source, its caps (a cloud volume's provisioned IOPS and
throughput, the I/O size counted as one operation, its burst), the figures of its model,
what a provider bills it for, its power and its embodied carbon. A size, IOPS or
throughput the provider does not allow is refused with the provider's rule.`,
		Example: `  tierbench device show aws-gp3
  tierbench device show 'aws-gp3(size=500GiB,iops=6000,throughput=250)'
  tierbench device show hdd-7200 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := profileRegistry(paths)
			if err != nil {
				return err
			}
			s, err := reg.Show(args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return s.WriteJSON(cmd.OutOrStdout())
			}
			return s.WriteText(cmd.OutOrStdout())
		},
	}
	addParams(cmd, set)
	return cmd
}
