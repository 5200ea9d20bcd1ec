package tpcc

import (
	"strings"
	"sync"

	"tierbench/internal/engine"
)

// statements turns the transactions' SQL, written with '?' placeholders and a
// {FOR UPDATE} marker, into the engine's SQL once per text.
type statements struct {
	d     *engine.Dialect
	cache sync.Map // template -> SQL
}

func newStatements(d *engine.Dialect) *statements {
	return &statements{d: d}
}

func (s *statements) get(template string) string {
	if q, ok := s.cache.Load(template); ok {
		return q.(string)
	}
	q := bind(s.d, strings.ReplaceAll(template, "{FOR UPDATE}", s.d.ForUpdate))
	s.cache.Store(template, q)
	return q
}

// q is the engine's SQL for template.
func (k *worker) q(template string) string { return k.wl.sql.get(template) }
