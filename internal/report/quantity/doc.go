// Package quantity says which values each quantity a report shows can take: a
// registry from a unit to its Range. A rate, a time, a size, an energy or a count
// cannot be negative; a percentage in tierbench's reports is always a share of a whole
// (of the CPUs' time, of a device's time, of page reads), 0 to 100. A percent change
// against a baseline is a column of a table, never a metric or an axis, so it has no
// unit here.
//
// Statistics (package stats) keep a confidence interval inside its quantity's range,
// and charts (package chart) keep an axis inside it, by asking Of for the range of a
// unit: a chart or a metric needs no rule of its own. A unit the registry does not
// know is Real, any value: an interval of it is Student's t as it stands. The table
// of known units is in units.go, and a test of each package that names units checks
// that every one of them is known.
//
//	r := quantity.Of("tx/s")   // NonNegative: 0 or more
//	r = quantity.Of("%")       // Percent: 0 to 100
//	r.Contains(-313)           // false
package quantity
