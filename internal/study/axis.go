package study

import (
	"strconv"
	"strings"
	"time"

	"tierbench/internal/params"
)

// Axis says how a factor's levels read along a chart's x axis: as numbers (users,
// SF), sizes (buffer: in MiB), durations (in seconds), or categories (engines,
// placements). Charts draw lines over a numeric factor and grouped bars over a
// categorical one.
type Axis string

const (
	AxisNumber   Axis = "number"
	AxisSize     Axis = "size"
	AxisDuration Axis = "duration"
	AxisCategory Axis = "category"
)

// axisOf is the axis of levels of a parameter of kind (a factor of its own has no
// kind): a size or a duration parameter reads its values as such, anything else is a
// number when every value is one, and a factor of its own may also hold sizes.
func axisOf(kind params.Kind, levels []string) Axis {
	all := func(read func(string) bool) bool {
		for _, l := range levels {
			if !read(l) {
				return false
			}
		}
		return len(levels) > 0
	}
	switch {
	case kind == params.Size && all(isSize):
		return AxisSize
	case kind == params.Duration && all(isDuration):
		return AxisDuration
	case all(isNumber):
		return AxisNumber
	case kind == "" && all(isSize):
		return AxisSize
	}
	return AxisCategory
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil
}
func isSize(s string) bool { _, err := params.ParseSize("", s); return err == nil }
func isDuration(s string) bool {
	_, err := time.ParseDuration(strings.TrimSpace(s))
	return err == nil
}

// Value reads a level as a number along the axis: sizes in MiB, durations in
// seconds.
func (a Axis) Value(level string) (float64, error) {
	switch a {
	case AxisSize:
		n, err := params.ParseSize("", level)
		return float64(n) / (1 << 20), err
	case AxisDuration:
		d, err := time.ParseDuration(strings.TrimSpace(level))
		return d.Seconds(), err
	}
	return strconv.ParseFloat(strings.TrimSpace(level), 64)
}

// Unit is the axis's unit for a chart ("" for numbers and categories).
func (a Axis) Unit() string {
	switch a {
	case AxisSize:
		return "MiB"
	case AxisDuration:
		return "s"
	}
	return ""
}

// Numeric reports whether the axis reads its levels as numbers.
func (a Axis) Numeric() bool { return a != AxisCategory && a != "" }
