package quantity

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Range is the values a quantity can take: Min to Max, both included; an infinite
// side is unbounded.
type Range struct {
	Min, Max float64
}

// The ranges of the registry.
var (
	// Real is any value: a quantity whose unit the registry does not know.
	Real = Range{Min: math.Inf(-1), Max: math.Inf(1)}
	// NonNegative is 0 or more: rates, times, sizes, energy, counts.
	NonNegative = Range{Min: 0, Max: math.Inf(1)}
	// Percent is a share of a whole, 0 to 100.
	Percent = Range{Min: 0, Max: 100}
)

// Of is the range of a quantity measured in unit: the registry's entry for the unit;
// NonNegative for a rate of a NonNegative quantity ("pages/s", "MB/s") or of events
// ("/s"), but not of a share, whose rate of change may be negative; Real for a unit
// the registry does not know.
func Of(unit string) Range {
	r, _ := lookup(unit)
	return r
}

// Known reports whether the registry knows unit.
func Known(unit string) bool {
	_, ok := lookup(unit)
	return ok
}

func lookup(unit string) (Range, bool) {
	if r, ok := units[unit]; ok {
		return r, true
	}
	for _, per := range perTime {
		base, ok := strings.CutSuffix(unit, per)
		if !ok {
			continue
		}
		if base == "" {
			return NonNegative, true // "/s": events a second
		}
		if r, ok := units[base]; ok && r == NonNegative {
			return NonNegative, true
		}
	}
	return Real, false
}

// perTime are the suffixes of a rate: a quantity per unit of time.
var perTime = []string{"/s", "/min", "/h"}

// Bounded reports whether the range has a finite side.
func (r Range) Bounded() bool { return !math.IsInf(r.Min, -1) || !math.IsInf(r.Max, 1) }

// Contains reports whether v is in the range.
func (r Range) Contains(v float64) bool { return v >= r.Min && v <= r.Max }

// Clamp is v moved into the range.
func (r Range) Clamp(v float64) float64 { return math.Max(r.Min, math.Min(r.Max, v)) }

// String says the range in words: "0 to 100", "0 or more", "any value".
func (r Range) String() string {
	lo, hi := !math.IsInf(r.Min, -1), !math.IsInf(r.Max, 1)
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch {
	case lo && hi:
		return f(r.Min) + " to " + f(r.Max)
	case lo:
		return f(r.Min) + " or more"
	case hi:
		return f(r.Max) + " or less"
	}
	return "any value"
}

// rangeJSON is a Range in JSON: an unbounded side is null.
type rangeJSON struct {
	Min *float64 `json:"min"`
	Max *float64 `json:"max"`
}

// MarshalJSON writes an infinite side as null: JSON has no infinity.
func (r Range) MarshalJSON() ([]byte, error) {
	var j rangeJSON
	if !math.IsInf(r.Min, 0) {
		j.Min = &r.Min
	}
	if !math.IsInf(r.Max, 0) {
		j.Max = &r.Max
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (r *Range) UnmarshalJSON(b []byte) error {
	var j rangeJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Real
	if j.Min != nil {
		r.Min = *j.Min
	}
	if j.Max != nil {
		r.Max = *j.Max
	}
	if r.Min > r.Max {
		return fmt.Errorf("range %v to %v: min is above max", r.Min, r.Max)
	}
	return nil
}
