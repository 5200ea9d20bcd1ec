package main

import (
	"strings"

	"github.com/spf13/cobra"

	"tierbench/internal/capacity"
	"tierbench/internal/lifecycle"
	"tierbench/internal/params"
	"tierbench/internal/workload/tpch"
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

// The hand-written tool commands (tpch gen and qgen, demo, device) parse their flags
// with these; the workloads' commands take theirs from package params.

// parseSF checks a scale factor flag (tpch.ParseSF).
func parseSF(s string) (float64, error) { return tpch.ParseSF(s) }

// parseSize reads a byte size such as 512MB or 2GiB (params.ParseSize).
func parseSize(flag, s string) (int64, error) { return params.ParseSize(flag, s) }

// registerSeed adds --seed, read as decimal and limited to min..max.
func registerSeed(cmd *cobra.Command, p *int64, def, min, max int64, usage string) {
	*p = def
	cmd.Flags().Var(params.SeedValue(p, min, max), "seed", usage)
}

// registerInt adds an int flag read as decimal.
func registerInt(cmd *cobra.Command, p *int, name string, def int, usage string) {
	*p = def
	cmd.Flags().Var(params.IntValue(p), name, usage)
}

// registerIgnoreLimits adds capacity.OverrideFlag to a command that estimates what it
// needs (capacity.Check) before it starts.
func registerIgnoreLimits(cmd *cobra.Command, ignore *bool) {
	cmd.Flags().BoolVar(ignore, strings.TrimPrefix(capacity.OverrideFlag, "--"), false,
		"run even when the estimated memory or disk exceeds what this host has (for hosts whose limits tierbench cannot see)")
}

// ensureWritableDir creates dir if needed and proves it is writable.
func ensureWritableDir(flag, dir string) error { return lifecycle.EnsureWritableDir(flag, dir) }
