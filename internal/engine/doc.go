// Package engine is the small interface tierbench drives databases through, with a
// registry by name. Engines live in subpackages (sqlite, postgres, mysql) and register
// from init(); per-engine SQL differences live in one Dialect value per engine.
package engine
