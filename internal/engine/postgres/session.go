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
	return &prepared{pc: s.pc, types: s.types, sd: sd, name: name, oids: sd.ParamOIDs,
		params: make([][]byte, n), formats: make([]int16, n), ends: make([]int, n)}, nil
}

// prepared runs a named statement with ExecStatement, encoding arguments as pgx does
// (strings as text, anything else in the format pgx's type map gives the parameter's
// type) and asking for every column as text. Its description, kept from Prepare, spares
// each execution the Describe message and the server's RowDescription that
// ExecPrepared asks for (statements without result columns still get them). Its
// buffers are reused from one Run to the next.
type prepared struct {
	pc      *pgconn.PgConn
	types   *pgtype.Map
	sd      *pgconn.StatementDescription
	name    string
	oids    []uint32
	params  [][]byte
	formats []int16
	ends    []int // where each encoded parameter ends in buf; -1 for NULL
	buf     []byte
	rows    engine.RowCollector
}

func (p *prepared) Run(ctx context.Context, args []any) ([][]byte, bool, error) {
	if err := p.bind(args); err != nil {
		return nil, false, err
	}
	rr := p.pc.ExecStatement(ctx, p.sd, p.params, p.formats, nil)
	p.rows.Reset()
	for rr.NextRow() {
		if p.rows.Len() == 0 {
			p.collect(rr.Values())
		}
	}
	if _, err := rr.Close(); err != nil {
		return nil, false, err
	}
	return p.rows.First(), p.rows.Len() > 0, nil
}

func (p *prepared) Query(ctx context.Context, args []any) (*engine.TextRows, error) {
	if err := p.bind(args); err != nil {
		return nil, err
	}
	rr := p.pc.ExecStatement(ctx, p.sd, p.params, p.formats, nil)
	p.rows.Reset()
	for rr.NextRow() {
		p.collect(rr.Values())
	}
	tag, err := rr.Close()
	if err != nil {
		return nil, err
	}
	return p.rows.Rows(tag.RowsAffected()), nil
}

// collect copies a row out of pgconn's buffer, which the next message overwrites.
func (p *prepared) collect(values [][]byte) {
	for _, v := range values {
		p.rows.Value(v)
	}
	p.rows.EndRow()
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
	p.params = engine.SliceEnds(p.params[:0], p.buf, p.ends)
	return nil
}

// deallocateTimeout bounds Close: a session whose server does not answer at once is
// about to be closed anyway, and its statements go with it.
const deallocateTimeout = time.Second

func (p *prepared) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), deallocateTimeout)
	defer cancel()
	return p.pc.Deallocate(ctx, p.name)
}
