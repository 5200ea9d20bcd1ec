package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"tierbench/internal/workload/oltp"
)

func newOLTPMixesCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "mixes",
		Short: "List the bundled mixes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return oltp.WriteBundled(cmd.OutOrStdout())
		},
	}
}

func newOLTPShowCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "show NAME",
		Short:   "Print a bundled mix's YAML",
		Example: "  tierbench oltp show policy > my-policy.yaml",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				names := oltp.Bundled()
				sort.Strings(names)
				return fmt.Errorf("give one bundled mix: %s", strings.Join(names, ", "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := oltp.BundledSource(args[0])
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(data)
			return err
		},
	}
}
