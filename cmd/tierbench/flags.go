package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"tierbench/internal/capacity"
	"tierbench/internal/tpch/dbgen"
)

// parseSF checks a scale factor flag: a finite number of at least 0.01, as dbgen takes.
func parseSF(s string) (float64, error) {
	sf, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(sf) || math.IsInf(sf, 0) {
		return 0, fmt.Errorf("--sf %q is not a number: give a scale factor such as 0.01, 0.1, 1 or 10", s)
	}
	if sf < 0.01 {
		return 0, fmt.Errorf("--sf %v is too small: the scale factor must be at least 0.01", s)
	}
	if sf > dbgen.MaxSF {
		return 0, fmt.Errorf("--sf %v is too large: TPC-H defines scale factors up to %d", s, dbgen.MaxSF)
	}
	if sf > 1 && sf != math.Trunc(sf) {
		// dbgen truncates such scale factors silently; a benchmark must not.
		return 0, fmt.Errorf("--sf %v: scale factors above 1 must be whole numbers (fractional ones are allowed below 1)", s)
	}
	return sf, nil
}

// parseSize reads a byte size such as 512MB, 2GiB, 1G or 1048576.
func parseSize(flag, s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{
		{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"TIB", 1 << 40},
		{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"TB", 1 << 40},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1},
	} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n < 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return 0, fmt.Errorf("%s %q is not a size: give bytes with an optional unit, such as 256MB or 2GiB", flag, s)
	}
	return int64(n * float64(mult)), nil
}

// registerIgnoreLimits adds capacity.OverrideFlag to a command that estimates what it
// needs (capacity.Check) before it starts.
func registerIgnoreLimits(cmd *cobra.Command, ignore *bool) {
	cmd.Flags().BoolVar(ignore, strings.TrimPrefix(capacity.OverrideFlag, "--"), false,
		"run even when the estimated memory or disk exceeds what this host has (for hosts whose limits tierbench cannot see)")
}
