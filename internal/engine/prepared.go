package engine

import "context"

// Preparer is implemented by sessions that can run prepared statements beneath
// database/sql and the driver's conversions of every value, for hot loops (the mix
// workers, TPC-C). PostgreSQL's runs on pgconn: a point select through tierbench then
// costs the client 7,500 user-space instructions instead of 11,600 through pgx's
// database/sql driver (callgrind, one user).
type Preparer interface {
	Prepare(ctx context.Context, query string) (Prepared, error)
}

// Prepared is a statement prepared on one session. Its methods belong to the session's
// goroutine and must not be called after the session closed.
type Prepared interface {
	// Run executes the statement with args, given as database/sql takes them (int64,
	// float64, bool, string, []byte, time.Time or nil), and reads every row. first is
	// the first row's columns in the server's text form (nil for NULL), valid until the
	// next Run; found reports whether there was a row. A string argument goes to the
	// server as text, which it reads as the parameter's type, so a value captured from
	// first can be passed back in as string(first[c]).
	Run(ctx context.Context, args []any) (first [][]byte, found bool, err error)
	// Query executes the statement with args as Run does and returns every row, and
	// the rows it changed, valid until the next Run or Query.
	Query(ctx context.Context, args []any) (*TextRows, error)
	// Close drops the statement on the server.
	Close() error
}

// TextRows are a statement's rows in the server's text form (nil for NULL) and the
// rows it inserted, updated or deleted.
type TextRows struct {
	Rows     [][][]byte
	Affected int64
}
