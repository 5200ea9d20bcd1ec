package main

import (
	"github.com/spf13/cobra"

	"tierbench/internal/device"
	"tierbench/internal/params"
)

func newDeviceCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "device",
		Short: "Storage device profiles and their models",
	}
	cmd.AddCommand(newDeviceListCommand(), newDeviceShowCommand(), newDeviceFitCommand(), newDeviceValidateCommand(), newDeviceCalibrateCommand(), newDeviceReplayCommand(), newDeviceServeCommand())
	return cmd
}

func newDeviceListCommand() *cobra.Command {
	var (
		paths  []string
		asJSON bool
	)
	set := params.NewSet("device list")
	set.List(&paths, "profiles", device.ProfilesHelp)
	set.Bool(&asJSON, "json", false, "print JSON instead of a table")
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List device profiles with figures computed from their models",
		Long: `List the built-in device profiles and users' profiles, with figures computed
from each model (random 8K read latency and 4K read IOPS at queue depth 1 and 32,
sequential 1 MiB read rate), power and sources; then the composites that wrap any
profile and how to spell them.

Users' profiles are YAML files read from --profiles (files or directories, repeatable),
or else from ` + device.DefaultUserDir() + ` if it exists.`,
		Example: `  tierbench device list
  tierbench device list --profiles ./devices --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg, err := profileRegistry(paths)
			if err != nil {
				return err
			}
			list, err := device.List(reg)
			if err != nil {
				return err
			}
			if asJSON {
				return device.WriteListingJSON(cmd.OutOrStdout(), list)
			}
			return device.WriteListingTable(cmd.OutOrStdout(), list)
		},
	}
	addParams(cmd, set)
	return cmd
}

// profileRegistry is the built-in profiles with the users' (--profiles, or the user
// directory), as device list and device show read them.
func profileRegistry(paths []string) (*device.Registry, error) {
	paths, err := device.ProfilePaths(paths)
	if err != nil {
		return nil, err
	}
	return device.Load(paths...)
}
