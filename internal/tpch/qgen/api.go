package qgen

import "errors"

// Query is one executable TPC-H query of a stream, for one SQL dialect.
type Query struct {
	// Number is the query number, 1..22.
	Number int
	// Setup statements run before SQL and Teardown after it (Q15's view); they are
	// part of the query's timed interval.
	Setup    []string
	SQL      string
	Teardown []string
}

// Order returns the query numbers of stream s in the order the spec's permutation
// table (Appendix A, row s mod 41) gives.
func Order(stream int) []int {
	return nil
}

// Params returns the substitution parameters of query q (1..22) as qgen draws them
// for scale factor sf and seed, in the order qgen prints them with -l.
func Params(sf float64, seed int64, q int) ([]string, error) {
	return nil, errors.New("qgen: not implemented")
}

// DefaultParams returns the qualification parameters of query q (qgen -d).
func DefaultParams(q int) []string {
	return nil
}

// Stream returns the 22 queries of stream s in the stream's order, as executable SQL
// for dialect (sqlite, postgres, mysql). Parameters come from seed as the spec's qgen
// draws them for stream s; useDefault selects the qualification parameters instead.
func Stream(dialect string, sf float64, seed int64, stream int, useDefault bool) ([]Query, error) {
	return nil, errors.New("qgen: not implemented")
}
