package params

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseDecimal reads a base-10 integer: an optional sign and digits, leading zeros
// allowed; no base prefixes or underscores.
func ParseDecimal(s string) (int64, error) {
	return strconv.ParseInt(strings.TrimSpace(s), 10, 64)
}

// ParseSize reads a byte size such as 512MB, 2GiB, 1G or 1048576; its errors name flag.
func ParseSize(flag, s string) (int64, error) {
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

// seedValue is a seed: pflag reads integers as Go literals (strconv.ParseInt base 0),
// so "0101000000", the TPC's own spelling of the first reference seed, became octal
// 17039360, and "0923101500" (the spec's seed is a timestamp mmddhhmmss, which starts
// with 0 from January to September) was refused with strconv's message. A seed is
// decimal; leading zeros are allowed.
type seedValue struct {
	p        *int64
	min, max int64
}

func (v *seedValue) String() string { return strconv.FormatInt(*v.p, 10) }
func (v *seedValue) Type() string   { return "int" }

func (v *seedValue) Set(s string) error {
	n, err := ParseDecimal(s)
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

// decimalInt is an int read as a decimal number only, for the reason seedValue gives.
type decimalInt struct{ p *int }

func (v decimalInt) String() string { return strconv.Itoa(*v.p) }
func (v decimalInt) Type() string   { return "int" }

func (v decimalInt) Set(s string) error {
	n, err := ParseDecimal(s)
	if err != nil || n < math.MinInt || n > math.MaxInt {
		return fmt.Errorf("give a decimal whole number, such as 4")
	}
	*v.p = int(n)
	return nil
}
