package qgen

import (
	"fmt"
	"strings"

	"tierbench/internal/engine"
)

// Dialects returns the names of the engines whose SQL the generator renders: those
// registered with package engine whose dialect has the rendering rules.
func Dialects() []string {
	var names []string
	for _, n := range engine.Names() {
		if d, err := engine.DialectOf(n); err == nil && renders(d) {
			names = append(names, n)
		}
	}
	return names
}

// renders says whether d has every rule the queries need.
func renders(d *engine.Dialect) bool {
	return d.DateLiteral != nil && d.AddDate != nil && d.Year != nil && d.Substring != nil
}

// lookupDialect is the dialect of the engine registered as name, whose rules (see the
// package documentation for which of them Clause 2.2.3.3 covers) the queries follow.
func lookupDialect(name string) (*engine.Dialect, error) {
	d, err := engine.DialectOf(name)
	if err != nil || !renders(d) {
		return nil, fmt.Errorf("qgen: unknown SQL dialect %q: valid dialects are %s",
			name, strings.Join(Dialects(), ", "))
	}
	return d, nil
}
