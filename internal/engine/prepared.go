package engine

import "context"

// Preparer is implemented by sessions that can run prepared statements beneath
// database/sql and the driver's conversions of every value, for hot loops (the mix
// workers, TPC-C). PostgreSQL's runs on pgconn: a point select through tierbench then
// costs the client 7,500 user-space instructions instead of 11,600 through pgx's
// database/sql driver (callgrind, one user). MariaDB's writes the binary protocol on
// go-sql-driver's socket.
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

// RowCollector gathers rows of text values copied out of a driver's buffers, which
// its next read overwrites, for Prepared.Run and Query: the values lie end to end in
// one buffer reused from one statement to the next.
type RowCollector struct {
	buf    []byte
	ends   []int // where each value ends in buf; -1 for NULL
	widths []int // values per row
	start  int   // where the current row's values begin in ends
	flat   [][]byte
	all    TextRows
}

// Reset empties the collector for the next statement; what it returned before is
// then invalid.
func (c *RowCollector) Reset() {
	c.buf, c.ends, c.widths, c.start = c.buf[:0], c.ends[:0], c.widths[:0], 0
}

// Len is the number of rows ended.
func (c *RowCollector) Len() int { return len(c.widths) }

// Null adds a NULL to the current row.
func (c *RowCollector) Null() { c.ends = append(c.ends, -1) }

// Value adds a copy of v (nil: NULL) to the current row.
func (c *RowCollector) Value(v []byte) {
	if v == nil {
		c.Null()
		return
	}
	c.Append(append(c.buf, v...))
}

// Buf is the buffer to append a value's text to, then handed to Append.
func (c *RowCollector) Buf() []byte { return c.buf }

// Append adds the value appended to Buf's result: b is that result.
func (c *RowCollector) Append(b []byte) {
	c.buf = b
	c.ends = append(c.ends, len(b))
}

// EndRow ends the current row.
func (c *RowCollector) EndRow() {
	c.widths = append(c.widths, len(c.ends)-c.start)
	c.start = len(c.ends)
}

// First is the first row (nil if there is none), valid until Reset.
func (c *RowCollector) First() [][]byte {
	if len(c.widths) == 0 {
		return nil
	}
	c.flat = SliceEnds(c.flat[:0], c.buf, c.ends[:c.widths[0]])
	return c.flat
}

// Rows is every row, with affected as the rows changed, valid until Reset.
func (c *RowCollector) Rows(affected int64) *TextRows {
	c.flat = SliceEnds(c.flat[:0], c.buf, c.ends)
	c.all.Rows, c.all.Affected = c.all.Rows[:0], affected
	at := 0
	for _, w := range c.widths {
		c.all.Rows = append(c.all.Rows, c.flat[at:at+w:at+w])
		at += w
	}
	return &c.all
}

// SliceEnds appends to out the values laid end to end in buf, ends[i] being where
// value i ends (-1: NULL, a nil value). It is called once buf is complete, since
// appending to buf may move it. An empty value stays empty and does not become NULL,
// also when buf is nil.
func SliceEnds(out [][]byte, buf []byte, ends []int) [][]byte {
	if buf == nil {
		buf = []byte{}
	}
	start := 0
	for _, end := range ends {
		if end < 0 {
			out = append(out, nil)
			continue
		}
		out = append(out, buf[start:end:end])
		start = end
	}
	return out
}
