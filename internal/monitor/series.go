package monitor

import (
	"strings"

	"tierbench/internal/engine"
)

// Kind says how a series is read: a value is what a sample measured (a level, or a
// rate or share over the time since the source's previous reading); a counter only
// grows, and a window's rate is its difference over the window.
type Kind string

const (
	Value   Kind = "value"
	Counter Kind = "counter"
)

// SeriesInfo documents a series. Name is dot-separated; a segment written <label>
// stands for a part filled in at sampling time (a CPU, a disk, a tier, a wait event),
// which becomes a label in Prometheus's exposition.
type SeriesInfo struct {
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Unit of a value: pct (0 to 100), cores, mib (2^20 bytes), mb_s (10^6 bytes a
	// second), per_s, ms, sessions; of a counter: seconds, bytes, or what it counts.
	Unit string `json:"unit"`
	Help string `json:"help"`
}

func value(name, unit, help string) SeriesInfo {
	return SeriesInfo{Name: name, Kind: Value, Unit: unit, Help: help}
}

func counter(name, unit, help string) SeriesInfo {
	return SeriesInfo{Name: name, Kind: Counter, Unit: unit, Help: help}
}

// Find is the entry of catalogue name is an instance of, with the values of its
// <label> segments.
func Find(catalogue []SeriesInfo, name string) (SeriesInfo, []string, bool) {
	for _, s := range catalogue {
		if labels, ok := engine.MatchStat(s.Name, name); ok {
			return s, labels, true
		}
	}
	return SeriesInfo{}, nil, false
}

// label makes text fit for a <label> segment: no dots (they separate segments).
func label(s string) string { return engine.StatLabel(s) }

// join builds a series name from its segments.
func join(segments ...string) string { return strings.Join(segments, ".") }
