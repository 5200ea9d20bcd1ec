package tpcc

import (
	"fmt"
	"strconv"
)

// textRow is one row of a statement run on the session's own prepared statement, in
// the server's text form, or the error that statement ended with (sql.ErrNoRows for
// no row), scanned as database/sql scans into the types the transactions use.
type textRow struct {
	vals [][]byte
	err  error
}

func (r textRow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	return scanText(r.vals, dest)
}

// textRows iterates over a statement's rows in text form.
type textRows struct {
	rows [][][]byte
	i    int
}

func (r *textRows) Next() bool {
	if r.i >= len(r.rows) {
		return false
	}
	r.i++
	return true
}

func (r *textRows) Scan(dest ...any) error {
	if r.i == 0 {
		return fmt.Errorf("scan before the first Next")
	}
	return scanText(r.rows[r.i-1], dest)
}

func (r *textRows) Err() error   { return nil }
func (r *textRows) Close() error { return nil }

// scanText converts a row's text values into dest: *string, *int, *int64, *float64,
// or *any (a string, nil for NULL). NULL goes only into *any, as database/sql allows.
func scanText(vals [][]byte, dest []any) error {
	if len(dest) != len(vals) {
		return fmt.Errorf("scan: %d columns into %d destinations", len(vals), len(dest))
	}
	for i, d := range dest {
		v := vals[i]
		if p, ok := d.(*any); ok {
			if v == nil {
				*p = nil
			} else {
				*p = string(v)
			}
			continue
		}
		if v == nil {
			return fmt.Errorf("scan column %d: NULL into %T", i+1, d)
		}
		var err error
		switch p := d.(type) {
		case *string:
			*p = string(v)
		case *int:
			*p, err = strconv.Atoi(string(v))
		case *int64:
			*p, err = strconv.ParseInt(string(v), 10, 64)
		case *float64:
			*p, err = strconv.ParseFloat(string(v), 64)
		default:
			return fmt.Errorf("scan column %d: cannot store %q in %T", i+1, v, d)
		}
		if err != nil {
			return fmt.Errorf("scan column %d: %w", i+1, err)
		}
	}
	return nil
}
