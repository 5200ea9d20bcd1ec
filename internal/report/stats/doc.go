// Package stats summarises repeated measurements for reports: the mean, standard
// deviation, extremes and Student-t 95% confidence interval of a cell's repetitions,
// and Welch's unequal-variance t-test of a cell against a baseline, with the %
// difference and whether it is significant at the 5% level; and the 95% intervals
// of a difference of means (Welch's) and of a ratio of means or of ratios (the delta
// method on the log scale, with Welch-Satterthwaite degrees of freedom), which a
// study's expected findings are judged by (contrast.go says why that method).
//
// Repetitions of a benchmark are few (two or three is common), so the interval uses
// Student's t with n-1 degrees of freedom, not the normal 1.96, and the test does not
// assume the two cells have the same variance (Welch, with the Welch-Satterthwaite
// degrees of freedom). With n = 2, t is 12.7: a plain interval of TPS or of a share
// of the CPU would reach below 0 or above 100%. So the interval is made on a scale
// that keeps it within the quantity's range (package quantity): the log scale for a
// quantity bounded on one side (a rate, a time, an energy), the arcsine-square-root
// scale for one bounded on both (a share); Method says which, and its Describe says
// it for a table's note. Values outside their own range (which no such scale takes)
// get Student's t cut at the range's bounds, and the method says so. Quantities that
// n does not support (a standard deviation of one value, a test with one repetition)
// are NaN in Go and null in JSON, never 0.
package stats
