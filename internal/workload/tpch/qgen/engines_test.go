package qgen

// The queries render each engine's SQL from its registered dialect.
import (
	_ "tierbench/internal/engine/mysql"
	_ "tierbench/internal/engine/postgres"
	_ "tierbench/internal/engine/sqlite"
)
