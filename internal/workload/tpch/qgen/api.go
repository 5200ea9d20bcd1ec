package qgen

import (
	"fmt"

	"tierbench/internal/engine"
)

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

// queryTexts renders each query (index = query number) for a dialect. Q15 is
// the only one with setup and teardown statements and so has its own shape.
var queryTexts = [QueryCount + 1]func(d *engine.Dialect, p []string) string{
	1: q1, 2: q2, 3: q3, 4: q4, 5: q5, 6: q6, 7: q7, 8: q8, 9: q9, 10: q10, 11: q11,
	12: q12, 13: q13, 14: q14, 16: q16, 17: q17, 18: q18, 19: q19, 20: q20, 21: q21, 22: q22,
}

func render(d *engine.Dialect, q int, p []string, stream int) Query {
	if q == 15 {
		return q15(d, p, stream)
	}
	return Query{Number: q, SQL: queryTexts[q](d, p)}
}

// Stream returns the 22 queries of stream s in the stream's order, as executable SQL
// for dialect (sqlite, postgres, mysql). Parameters come from seed exactly as
// `qgen -s sf -p stream -r seed` draws them; like qgen, Stream does not derive
// the seed from the stream number, so pass StreamSeed(base, s) for query stream
// s of a run (Clause 2.1.3.3). useDefault selects the qualification parameters
// instead (qgen -d), with Q11's fraction scaled to sf.
func Stream(dialect string, sf float64, seed int64, stream int, useDefault bool) ([]Query, error) {
	d, err := lookupDialect(dialect)
	if err != nil {
		return nil, err
	}
	if stream < 0 {
		return nil, fmt.Errorf("qgen: stream %d is invalid: streams are numbered from 0 (power test) upwards", stream)
	}
	if err := checkScale(sf); err != nil {
		return nil, err
	}
	ds, err := loadDists()
	if err != nil {
		return nil, err
	}
	var s *streams
	if !useDefault {
		if s, err = newStreams(seed); err != nil {
			return nil, err
		}
	}
	var queries []Query
	for _, q := range Order(stream) {
		queries = append(queries, render(d, q, queryParams(ds, s, sf, q, useDefault), stream))
	}
	return queries, nil
}

// QueryText returns query q alone for dialect with the given parameters (as
// Params or DefaultParams return them), for running a single query outside a
// stream; stream names Q15's view.
func QueryText(dialect string, q int, params []string, stream int) (Query, error) {
	d, err := lookupDialect(dialect)
	if err != nil {
		return Query{}, err
	}
	if err := checkQuery(q); err != nil {
		return Query{}, err
	}
	if want := len(defaultParams[q-1]); len(params) != want {
		return Query{}, fmt.Errorf("qgen: query %d takes %d parameters, got %d", q, want, len(params))
	}
	if stream < 0 {
		return Query{}, fmt.Errorf("qgen: stream %d is invalid: streams are numbered from 0 (power test) upwards", stream)
	}
	return render(d, q, params, stream), nil
}
