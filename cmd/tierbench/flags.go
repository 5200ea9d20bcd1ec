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

// seedValue is the value of every --seed flag. pflag reads integers as Go literals
// (strconv.ParseInt base 0), so "0101000000", the TPC's own spelling of the first
// reference seed, became octal 17039360, and "0923101500" (the spec's seed is a
// timestamp mmddhhmmss, which starts with 0 from January to September) was refused
// with strconv's message. A seed is decimal; leading zeros are allowed.
type seedValue struct {
	p        *int64
	min, max int64
}

func (v *seedValue) String() string { return strconv.FormatInt(*v.p, 10) }
func (v *seedValue) Type() string   { return "int" }

func (v *seedValue) Set(s string) error {
	n, err := parseDecimal(s)
	if err != nil || n < v.min || n > v.max {
		valid := fmt.Sprintf(" from %d to %d", v.min, v.max)
		if v.min == math.MinInt64 && v.max == math.MaxInt64 {
			valid = ""
		}
		return fmt.Errorf("a seed is a decimal whole number%s (leading zeros are fine: 0101000000 is 101000000)", valid)
	}
	*v.p = n
	return nil
}

// registerSeed adds --seed, read as decimal and limited to min..max.
func registerSeed(cmd *cobra.Command, p *int64, def, min, max int64, usage string) {
	*p = def
	cmd.Flags().Var(&seedValue{p: p, min: min, max: max}, "seed", usage)
}

// registerGeneratorSeed adds a --seed that takes any int64, for the data and input
// generators of tpcc and oltp, whose seeds are only mixed into their streams.
func registerGeneratorSeed(cmd *cobra.Command, p *int64, usage string) {
	registerSeed(cmd, p, 1, math.MinInt64, math.MaxInt64, usage)
}

// decimalInt is an int flag read as a decimal number only, for the reason seedValue
// gives: pflag's IntVar takes "010" as 8 and "0x10" as 16.
type decimalInt struct{ p *int }

func (v decimalInt) String() string { return strconv.Itoa(*v.p) }
func (v decimalInt) Type() string   { return "int" }

func (v decimalInt) Set(s string) error {
	n, err := parseDecimal(s)
	if err != nil || n < math.MinInt || n > math.MaxInt {
		return fmt.Errorf("give a decimal whole number, such as 4")
	}
	*v.p = int(n)
	return nil
}

// registerInt adds an int flag read as decimal (decimalInt).
func registerInt(cmd *cobra.Command, p *int, name string, def int, usage string) {
	*p = def
	cmd.Flags().Var(decimalInt{p}, name, usage)
}

// parseDecimal reads a base-10 integer: an optional sign and digits, leading zeros
// allowed; no base prefixes or underscores.
func parseDecimal(s string) (int64, error) {
	return strconv.ParseInt(strings.TrimSpace(s), 10, 64)
}

// registerIgnoreLimits adds capacity.OverrideFlag to a command that estimates what it
// needs (capacity.Check) before it starts.
func registerIgnoreLimits(cmd *cobra.Command, ignore *bool) {
	cmd.Flags().BoolVar(ignore, strings.TrimPrefix(capacity.OverrideFlag, "--"), false,
		"run even when the estimated memory or disk exceeds what this host has (for hosts whose limits tierbench cannot see)")
}
