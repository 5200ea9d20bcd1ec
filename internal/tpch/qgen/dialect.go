package qgen

import (
	"fmt"
	"sort"
	"strings"
)

// dialect holds the few ways the SQL of the three engines differs (see the
// package documentation for which of them Clause 2.2.3.3 covers).
type dialect struct {
	name string
	// date renders an ISO date (YYYY-MM-DD) as a date value.
	date func(iso string) string
	// addDate renders the ISO date moved by n units (day, month or year); n is
	// an integer literal and may be negative.
	addDate func(iso, n, unit string) string
	// year renders the year of a date expression as an integer.
	year func(expr string) string
	// substr renders the substring of expr of length n starting at from (1-based).
	substr func(expr string, from, n int) string
	// derivedColumnList says whether a derived table may rename its columns in
	// its alias (Q13's "as c_orders (c_custkey, c_count)").
	derivedColumnList bool
	// realDecimals says that decimal columns are binary floating point, so that
	// constant arithmetic on decimal literals must be done exactly beforehand.
	realDecimals bool
}

// splitSign separates a leading minus sign from an integer literal.
func splitSign(n string) (neg bool, abs string) {
	if strings.HasPrefix(n, "-") {
		return true, n[1:]
	}
	return false, n
}

// dialects maps each supported dialect name to its rendering rules.
var dialects = map[string]*dialect{
	// PostgreSQL: the spec's SQL-92 date literals, intervals and substring
	// (without Q1's interval leading precision "(3)", which it rejects).
	"postgres": {
		name: "postgres",
		date: func(iso string) string { return "date '" + iso + "'" },
		addDate: func(iso, n, unit string) string {
			op := "+"
			if neg, abs := splitSign(n); neg {
				op, n = "-", abs
			}
			return fmt.Sprintf("date '%s' %s interval '%s' %s", iso, op, n, unit)
		},
		year: func(expr string) string { return "extract(year from " + expr + ")" },
		substr: func(expr string, from, n int) string {
			return fmt.Sprintf("substring(%s from %d for %d)", expr, from, n)
		},
		derivedColumnList: true,
	},
	// MySQL and MariaDB: date_add/date_sub with unquoted interval counts; no
	// derived column lists (MariaDB 10.11).
	"mysql": {
		name: "mysql",
		date: func(iso string) string { return "date '" + iso + "'" },
		addDate: func(iso, n, unit string) string {
			fn := "date_add"
			if neg, abs := splitSign(n); neg {
				fn, n = "date_sub", abs
			}
			return fmt.Sprintf("%s(date '%s', interval %s %s)", fn, iso, n, unit)
		},
		year: func(expr string) string { return "extract(year from " + expr + ")" },
		substr: func(expr string, from, n int) string {
			return fmt.Sprintf("substring(%s from %d for %d)", expr, from, n)
		},
	},
	// SQLite: dates are ISO text compared as strings, date() applies the
	// shifts, strftime extracts the year; decimals are REAL.
	"sqlite": {
		name: "sqlite",
		date: func(iso string) string { return "'" + iso + "'" },
		addDate: func(iso, n, unit string) string {
			if !strings.HasPrefix(n, "-") {
				n = "+" + n
			}
			return fmt.Sprintf("date('%s', '%s %ss')", iso, n, unit)
		},
		year:         func(expr string) string { return "cast(strftime('%Y', " + expr + ") as integer)" },
		substr:       func(expr string, from, n int) string { return fmt.Sprintf("substr(%s, %d, %d)", expr, from, n) },
		realDecimals: true,
	},
}

// Dialects returns the names of the supported SQL dialects.
func Dialects() []string {
	names := make([]string, 0, len(dialects))
	for n := range dialects {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func lookupDialect(name string) (*dialect, error) {
	d, ok := dialects[name]
	if !ok {
		return nil, fmt.Errorf("qgen: unknown SQL dialect %q: valid dialects are %s",
			name, strings.Join(Dialects(), ", "))
	}
	return d, nil
}
