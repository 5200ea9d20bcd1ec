package device

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Units of profile fields. A field's unit is the suffix of its name (seek_avg_ms,
// transfer_mbps, size_gib); a command line may give a value with any unit of the same
// kind (controller=0.2ms for controller_us, size=32GiB for size_gib, link=8gfc for
// link_mbps), converted here. Decimal units (MB, GB, MB/s) are powers of 1000 as drive
// vendors use them; binary ones (KiB, MiB, GiB) powers of 1024.

type unitKind int

const (
	kindNone  unitKind = iota
	kindTime           // seconds
	kindSize           // bytes
	kindRate           // bytes per second
	kindPower          // watts
)

type unit struct {
	kind  unitKind
	scale float64 // base units per one of this unit
}

// fieldUnits maps a field-name suffix to its unit.
var fieldUnits = map[string]unit{
	"ms": {kindTime, 1e-3}, "us": {kindTime, 1e-6}, "ns": {kindTime, 1e-9}, "s": {kindTime, 1},
	"kb": {kindSize, 1e3}, "mb": {kindSize, 1e6}, "gb": {kindSize, 1e9}, "tb": {kindSize, 1e12},
	"kib": {kindSize, 1 << 10}, "mib": {kindSize, 1 << 20}, "gib": {kindSize, 1 << 30}, "tib": {kindSize, 1 << 40},
	"mbps": {kindRate, 1e6}, "gbps": {kindRate, 1e9},
	"w": {kindPower, 1},
}

// valueUnits are the units a command-line value may carry (lower case).
var valueUnits = map[string]unit{
	"ms": {kindTime, 1e-3}, "us": {kindTime, 1e-6}, "µs": {kindTime, 1e-6}, "ns": {kindTime, 1e-9}, "s": {kindTime, 1},
	"b": {kindSize, 1}, "k": {kindSize, 1 << 10}, "m": {kindSize, 1 << 20}, "g": {kindSize, 1 << 30}, "t": {kindSize, 1 << 40},
	"kb": {kindSize, 1e3}, "mb": {kindSize, 1e6}, "gb": {kindSize, 1e9}, "tb": {kindSize, 1e12},
	"kib": {kindSize, 1 << 10}, "mib": {kindSize, 1 << 20}, "gib": {kindSize, 1 << 30}, "tib": {kindSize, 1 << 40},
	"mb/s": {kindRate, 1e6}, "gb/s": {kindRate, 1e9}, "mbps": {kindRate, 1e6}, "gbps": {kindRate, 1e9},
	// Fibre Channel speeds by their marketing names, as payload rates (docs/devices.md,
	// FC SAN link row).
	"gfc": {kindRate, 1e8}, // 8gfc = 800 MB/s: 1GFC carries about 100 MB/s of payload
	"w":   {kindPower, 1},
}

// fieldUnit returns the unit of a field from its name.
func fieldUnit(field string) (unit, bool) {
	i := strings.LastIndexByte(field, '_')
	if i < 0 {
		return unit{}, false
	}
	u, ok := fieldUnits[field[i+1:]]
	return u, ok
}

// fieldBase is a field name without its unit suffix ("controller" for controller_us).
func fieldBase(field string) string {
	if _, ok := fieldUnit(field); ok {
		return field[:strings.LastIndexByte(field, '_')]
	}
	return field
}

// parseQuantity reads a command-line value for a field: a bare number in the field's
// own unit, or a number with a unit of the same kind.
func parseQuantity(field, text string) (float64, error) {
	s := strings.TrimSpace(text)
	i := 0
	for i < len(s) && (s[i] == '.' || s[i] == '-' || s[i] == '+' || s[i] == 'e' && i > 0 || s[i] >= '0' && s[i] <= '9') {
		i++
	}
	num, suffix := s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number", text)
	}
	if suffix == "" {
		return v, nil
	}
	fu, ok := fieldUnit(field)
	if !ok {
		return 0, fmt.Errorf("%q: %s takes a plain number, without a unit", text, field)
	}
	vu, ok := valueUnits[suffix]
	if !ok || vu.kind != fu.kind {
		return 0, fmt.Errorf("%q: unit %q does not fit %s (%s)", text, suffix, field, kindHint(fu.kind))
	}
	return v * vu.scale / fu.scale, nil
}

func kindHint(k unitKind) string {
	switch k {
	case kindTime:
		return "a time such as 200us or 0.5ms"
	case kindSize:
		return "a size such as 512MiB or 32GiB"
	case kindRate:
		return "a rate such as 800MB/s, 2GB/s or 8gfc"
	case kindPower:
		return "watts such as 7.5W"
	}
	return "a plain number"
}
