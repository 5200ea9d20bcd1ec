package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"

	"tierbench/internal/engine"
)

// cancelGrace is how long a cancelled statement may take to end before the session
// drops its connection.
const cancelGrace = 5 * time.Second

// session is a pinned connection that can stop its statement from another goroutine
// (engine.Canceller) with PostgreSQL's cancel request, so a hot loop can run
// statements without pgx watching a context for each one.
type session struct {
	*engine.ConnSession
	pc     *pgconn.PgConn
	types  *pgtype.Map
	closed atomic.Bool
}

func newSession(ctx context.Context, db *sql.DB) (*session, error) {
	cs, err := engine.NewConnSession(ctx, db)
	if err != nil {
		return nil, err
	}
	s := &session{ConnSession: cs}
	if err := cs.Conn().Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("open session: driver connection %T is not pgx's", dc)
		}
		s.pc, s.types = c.Conn().PgConn(), c.Conn().TypeMap()
		return nil
	}); err != nil {
		cs.Close()
		return nil, err
	}
	return s, nil
}

func (s *session) Close() error {
	s.closed.Store(true)
	return s.ConnSession.Close()
}

// Cancel implements engine.Canceller: a cancel request now, and the connection closed
// if the session is still open cancelGrace later (a statement that ignores the
// request, or a caller stuck in one).
func (s *session) Cancel() {
	ctx, cancel := context.WithTimeout(context.Background(), cancelGrace)
	defer cancel()
	_ = s.pc.CancelRequest(ctx)
	time.AfterFunc(cancelGrace, func() {
		if !s.closed.Load() {
			_ = s.pc.Conn().Close()
		}
	})
}

// preparedSeq numbers the statements Prepare names, unique in the process, so that
// they never meet pgx's own (stmtcache_...) on a connection.
var preparedSeq atomic.Int64

// Prepare implements engine.Preparer with a named statement on pgconn.
func (s *session) Prepare(ctx context.Context, query string) (engine.Prepared, error) {
	name := fmt.Sprintf("tierbench_%d", preparedSeq.Add(1))
	sd, err := s.pc.Prepare(ctx, name, query, nil)
	if err != nil {
		return nil, err
	}
	n := len(sd.ParamOIDs)
	return &prepared{pc: s.pc, types: s.types, name: name, oids: sd.ParamOIDs,
		params: make([][]byte, n), formats: make([]int16, n), ends: make([]int, n),
		// Never nil, so that an empty value slices to an empty value and not to NULL.
		buf: make([]byte, 0, 64), row: make([]byte, 0, 256)}, nil
}

// prepared runs a named statement with ExecPrepared, encoding arguments as pgx does
// (strings as text, anything else in the format pgx's type map gives the parameter's
// type) and asking for every column as text. Its buffers are reused from one Run to
// the next.
type prepared struct {
	pc      *pgconn.PgConn
	types   *pgtype.Map
	name    string
	oids    []uint32
	params  [][]byte
	formats []int16
	ends    []int // where each encoded parameter ends in buf; -1 for NULL
	buf     []byte
	row     []byte
	first   [][]byte
	// Query's: where each value ends in row (-1 for NULL), the values per row, the
	// values sliced, and the result.
	cells  []int
	widths []int
	flat   [][]byte
	all    engine.TextRows
}

func (p *prepared) Run(ctx context.Context, args []any) ([][]byte, bool, error) {
	if err := p.bind(args); err != nil {
		return nil, false, err
	}
	rr := p.pc.ExecPrepared(ctx, p.name, p.params, p.formats, nil)
	found := false
	for rr.NextRow() {
		if !found {
			found = true
			p.keep(rr.Values())
		}
	}
	if _, err := rr.Close(); err != nil {
		return nil, false, err
	}
	if !found {
		return nil, false, nil
	}
	return p.first, true, nil
}

func (p *prepared) Query(ctx context.Context, args []any) (*engine.TextRows, error) {
	if err := p.bind(args); err != nil {
		return nil, err
	}
	rr := p.pc.ExecPrepared(ctx, p.name, p.params, p.formats, nil)
	// Copy every value into one buffer, noting where each lies; slice it only once
	// the rows are read, since appending may move it.
	p.row, p.cells, p.widths = p.row[:0], p.cells[:0], p.widths[:0]
	for rr.NextRow() {
		values := rr.Values()
		for _, v := range values {
			if v == nil {
				p.cells = append(p.cells, -1)
				continue
			}
			p.row = append(p.row, v...)
			p.cells = append(p.cells, len(p.row))
		}
		p.widths = append(p.widths, len(values))
	}
	tag, err := rr.Close()
	if err != nil {
		return nil, err
	}
	p.all.Affected = tag.RowsAffected()
	p.all.Rows = p.all.Rows[:0]
	p.flat = p.flat[:0]
	start := 0
	for _, end := range p.cells {
		if end < 0 {
			p.flat = append(p.flat, nil)
			continue
		}
		p.flat = append(p.flat, p.row[start:end:end])
		start = end
	}
	at := 0
	for _, w := range p.widths {
		p.all.Rows = append(p.all.Rows, p.flat[at:at+w:at+w])
		at += w
	}
	return &p.all, nil
}

// bind encodes args into p.params and p.formats.
func (p *prepared) bind(args []any) error {
	if len(args) != len(p.oids) {
		return fmt.Errorf("%d arguments for %d parameters", len(args), len(p.oids))
	}
	p.buf = p.buf[:0]
	for i, a := range args {
		switch v := a.(type) {
		case nil:
			p.formats[i], p.ends[i] = pgtype.TextFormatCode, -1
			continue
		case string:
			p.formats[i] = pgtype.TextFormatCode
			p.buf = append(p.buf, v...)
		default:
			p.formats[i] = p.types.FormatCodeForOID(p.oids[i])
			out, err := p.types.Encode(p.oids[i], p.formats[i], v, p.buf)
			if err != nil {
				return fmt.Errorf("argument %d: %w", i+1, err)
			}
			if out == nil { // the value encodes as NULL
				p.ends[i] = -1
				continue
			}
			p.buf = out
		}
		p.ends[i] = len(p.buf)
	}
	// Slice only now: appending may have moved buf.
	start := 0
	for i, end := range p.ends {
		if end < 0 {
			p.params[i] = nil
			continue
		}
		p.params[i] = p.buf[start:end:end]
		start = end
	}
	return nil
}

// keep copies a row out of pgconn's buffer, which the next message overwrites.
func (p *prepared) keep(values [][]byte) {
	p.row = p.row[:0]
	for _, v := range values {
		p.row = append(p.row, v...)
	}
	p.first = p.first[:0]
	at := 0
	for _, v := range values {
		if v == nil {
			p.first = append(p.first, nil)
			continue
		}
		p.first = append(p.first, p.row[at:at+len(v):at+len(v)])
		at += len(v)
	}
}

// deallocateTimeout bounds Close: a session whose server does not answer at once is
// about to be closed anyway, and its statements go with it.
const deallocateTimeout = time.Second

func (p *prepared) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), deallocateTimeout)
	defer cancel()
	return p.pc.Deallocate(ctx, p.name)
}
