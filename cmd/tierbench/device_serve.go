package main

import (
	"os"

	"github.com/spf13/cobra"

	"tierbench/internal/emulator"
)

// newDeviceServeCommand is the emulator's server process, which tierbench starts and
// stops itself (emulator.Start); it is hidden from help.
func newDeviceServeCommand() *cobra.Command {
	var config string
	cmd := &cobra.Command{
		Use:    "serve --config FILE",
		Short:  "Serve emulated devices over FUSE (started by tierbench itself)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return emulator.Serve(cmd.Context(), config, os.Stdin, os.Stdout)
		},
	}
	cmd.Flags().StringVar(&config, "config", "", "server configuration written by emulator.Start")
	cmd.MarkFlagRequired("config")
	return cmd
}
