package engine

import (
	"fmt"
	"strings"
)

// Dialect holds every per-engine fact that callers need, opened or not: how its SQL
// differs, its column types, what it can do at once, and what it takes of a host. It is
// static (Driver.Dialect), so the query generator renders SQL for an engine it never
// opens and commands estimate before they start; no caller switches on engine names.
type Dialect struct {
	// Name is the engine's registered name: sqlite, postgres or mysql.
	Name string
	// Param returns the placeholder for the n-th (1-based) statement parameter.
	Param func(n int) string
	// Analyze returns the statements that collect optimizer statistics for a table.
	Analyze func(table string) []string
	// Begin starts a transaction that may write, BeginRead one that only reads; both
	// run as plain statements, so no database/sql Tx (and its goroutine) is involved.
	Begin, BeginRead string

	// ColumnTypes maps each portable column type (ColumnKinds) to the engine's; %d
	// takes a length (varchar, char) or precision and scale (decimal). ColumnType
	// renders one.
	ColumnTypes map[string]string
	// RealDecimals says decimal columns are binary floating point (SQLite's REAL):
	// money is not exact, so constant arithmetic on decimal literals must be done
	// beforehand and checks allow a rounding error.
	RealDecimals bool
	// TableSuffix ends CREATE TABLE (MariaDB: the storage engine).
	TableSuffix string
	// ForUpdate locks the rows a SELECT reads for update: " FOR UPDATE", or "" where a
	// writing transaction already holds the database's only write lock (SQLite's BEGIN
	// IMMEDIATE).
	ForUpdate string
	// LoadNULLText says Engine.Load stores the text \N as that text, not as NULL
	// (SQLite's inserts; COPY and LOAD DATA take it as NULL): callers that load NULLs
	// set them afterwards.
	LoadNULLText bool
	// MaxWriters caps parallel writers, such as concurrent Engine.Load calls: SQLite
	// has one writer. 0 means no cap.
	MaxWriters int
	// Retryable reports a deadlock, serialization failure or lock timeout, after which
	// the same transaction may succeed when run again.
	Retryable func(err error) bool

	// What the TPC-H query generator renders differently (Clause 2.2.3.3 allows these).
	// DateLiteral renders an ISO date (YYYY-MM-DD) as a date value.
	DateLiteral func(iso string) string
	// AddDate renders the ISO date moved by n units (day, month or year); n is an
	// integer literal and may be negative.
	AddDate func(iso, n, unit string) string
	// Year renders the year of a date expression as an integer.
	Year func(expr string) string
	// Substring renders the substring of expr of length n starting at from (1-based).
	Substring func(expr string, from, n int) string
	// DerivedColumnList says whether a derived table may rename its columns in its
	// alias (Q13's "as c_orders (c_custkey, c_count)").
	DerivedColumnList bool

	// Footprint is what the engine takes of a host, for estimates.
	Footprint Footprint
}

// ColumnKinds are the portable column types every dialect maps (Dialect.ColumnTypes).
var ColumnKinds = []string{"int", "bigint", "smallint", "float", "decimal", "varchar", "char", "text", "date", "timestamp", "blob"}

// ColumnType renders the portable column type kind with its length, or precision and
// scale, as the engine's type: ColumnType("decimal", 15, 2) is DECIMAL(15,2) on
// PostgreSQL and REAL on SQLite.
func (d *Dialect) ColumnType(kind string, args ...int) string {
	f := d.ColumnTypes[kind]
	n := strings.Count(f, "%d")
	if n == 0 {
		return f
	}
	vals := make([]any, n)
	for i := range vals {
		vals[i] = 0
		if i < len(args) {
			vals[i] = args[i]
		}
	}
	return fmt.Sprintf(f, vals...)
}

// Footprint is what an engine takes of the host it runs on, measured, for the
// estimates commands make before they start (capacity.Check); 0 means unknown. The
// figures and how they were measured are in docs/tpch.md ("What a run needs") and
// docs/oltp.md ("What a load or a run needs").
type Footprint struct {
	// TPCHBytesPerSF is the disk a TPC-H database takes per unit of scale factor at
	// its peak during the load (tables, keys, indexes, statistics and what the engine
	// logs meanwhile), as measured at SF 1 by scripts/tpch-footprint.
	TPCHBytesPerSF float64
	// TPCHSessionBytes is the memory one TPC-H query stream adds to the host: its
	// server backend, or its connection of an embedded engine, running the 22 queries
	// at default settings (measured by the same script).
	TPCHSessionBytes float64
	// BufferPerSession says the buffer a run sets (Config.BufferBytes) is held by
	// every session, not shared: SQLite gives each connection its own cache_size.
	BufferPerSession bool
	// SessionMemory is the resident memory, in bytes, that one open session of a
	// managed or embedded engine adds beside tierbench's own (a PostgreSQL backend
	// process, a MariaDB connection thread and its buffers; for SQLite its connection
	// and page cache inside tierbench), as scripts/session-memory measures it: the
	// larger of the policy mix's and TPC-C's figures, at 20 and 400 users, rounded up.
	// Runs multiply it by their users before they start.
	SessionMemory int64
}
