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
// degrees of freedom). Quantities that n does not support (a standard deviation of one
// value, a test with one repetition) are NaN in Go and null in JSON, never 0.
package stats
