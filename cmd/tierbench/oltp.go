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
			w := cmd.OutOrStdout()
			for _, name := range oltp.Bundled() {
				m, err := oltp.Open(name)
				if err != nil {
					return err
				}
				var txns []string
				for _, t := range m.Transactions {
					txns = append(txns, fmt.Sprintf("%s %g", t.Name, t.Weight))
				}
				desc := strings.Join(strings.Fields(m.Description), " ")
				if i := strings.Index(desc, ". "); i > 0 {
					desc = desc[:i+1]
				}
				fmt.Fprintf(w, "%-13s %s\n%-13s weights: %s\n", name, desc, "", strings.Join(txns, ", "))
			}
			fmt.Fprintln(cmd.OutOrStdout(), "\n'tierbench oltp show NAME > my.yaml' prints one to copy and edit; run it with --mix my.yaml")
			return nil
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
