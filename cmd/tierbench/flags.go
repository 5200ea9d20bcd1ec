package main

import (
	"github.com/spf13/cobra"

	"tierbench/internal/params"
)

// addParams gives cmd the parameters of sets as its flags: every command declares its
// flags as parameters (package params), the workloads' phases and the tool commands
// alike, so a value is read the same way (decimal integers, sizes, seeds) and a bad
// one fails with the same kind of line, naming the flag.
func addParams(cmd *cobra.Command, sets ...*params.Set) {
	for _, set := range sets {
		cmd.Flags().AddFlagSet(set.FlagSet())
		for _, p := range set.Params() {
			if p.Required {
				_ = cmd.MarkFlagRequired(p.Name)
			}
		}
	}
}
