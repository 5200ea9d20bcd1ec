package main

import (
	"os"

	"github.com/spf13/cobra"

	"tierbench/internal/emulator"
	"tierbench/internal/params"
)

// newDeviceServeCommand is the emulator's server process, which tierbench starts and
// stops itself (emulator.Start); it is hidden from help.
func newDeviceServeCommand() *cobra.Command {
	var config string
	set := params.NewSet("device serve")
	set.String(&config, "config", "", params.String, "server configuration written by emulator.Start").Require()
	cmd := &cobra.Command{
		Use:    "serve --config FILE",
		Short:  "Serve emulated devices over FUSE (started by tierbench itself)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return emulator.Serve(cmd.Context(), config, os.Stdin, os.Stdout)
		},
	}
	addParams(cmd, set)
	return cmd
}
