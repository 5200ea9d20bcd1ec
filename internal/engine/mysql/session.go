package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"tierbench/internal/engine"
)

const (
	// killGrace is how long a killed statement may take to return before the session
	// gives up on the server and drops the connection.
	killGrace = 5 * time.Second
	// errInterrupted is MySQL's "Query execution was interrupted" (ER_QUERY_INTERRUPTED).
	errInterrupted = 1317
	// errTooManyConnections is "Too many connections" (ER_CON_COUNT_ERROR).
	errTooManyConnections = 1040
)

// session pins a connection and stops its statements on the server with KILL QUERY.
type session struct {
	db     *sql.DB
	admin  *sql.DB
	conn   *sql.Conn
	id     int64
	closed atomic.Bool
	// link is conn's link (wire.go), nil when it has none.
	link *link
}

func newSession(ctx context.Context, db, admin *sql.DB) (*session, error) {
	s := &session{db: db, admin: admin}
	if err := s.pin(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *session) pin(ctx context.Context) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open session: %w", err)
	}
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&s.id); err != nil {
		conn.Close()
		return fmt.Errorf("open session: %w", err)
	}
	s.conn, s.link = conn, linkOf(conn)
	return nil
}

// Conn is the pinned connection. After a statement whose server did not answer a KILL
// QUERY in time the session pins a new one, so callers should not keep it across a
// cancelled statement.
func (s *session) Conn() *sql.Conn { return s.conn }

func (s *session) Exec(ctx context.Context, query string, args ...any) error {
	return s.run(ctx, func(ctx context.Context, conn *sql.Conn) error {
		_, err := conn.ExecContext(ctx, query, args...)
		return err
	})
}

func (s *session) Query(ctx context.Context, query string, args ...any) (*engine.Rows, error) {
	var out *engine.Rows
	err := s.run(ctx, func(ctx context.Context, conn *sql.Conn) error {
		rows, err := conn.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		out, err = engine.ReadRows(rows)
		return err
	})
	return out, err
}

func (s *session) Close() error {
	s.closed.Store(true)
	return s.conn.Close()
}

// Cancel implements engine.Canceller: KILL QUERY now, and KILL CONNECTION if the
// session is still open killGrace later (a statement that ignores KILL QUERY, or a
// caller stuck in one).
func (s *session) Cancel() {
	id := s.id
	kctx, cancel := context.WithTimeout(context.Background(), killGrace)
	defer cancel()
	_, _ = s.admin.ExecContext(kctx, fmt.Sprintf("KILL QUERY %d", id))
	time.AfterFunc(killGrace, func() {
		if s.closed.Load() {
			return
		}
		kctx, cancel := context.WithTimeout(context.Background(), killGrace)
		defer cancel()
		_, _ = s.admin.ExecContext(kctx, fmt.Sprintf("KILL CONNECTION %d", id))
	})
}

// run runs f under a context the driver sees only ending killGrace after a KILL QUERY
// that the server did not answer.
func (s *session) run(ctx context.Context, f func(context.Context, *sql.Conn) error) error {
	if ctx.Done() == nil {
		return f(ctx, s.conn)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	stmtCtx, dropConn := context.WithCancel(context.WithoutCancel(ctx))
	defer dropConn()
	finished, killed := make(chan struct{}), make(chan struct{})
	id := s.id
	stop := context.AfterFunc(ctx, func() {
		defer close(killed)
		kctx, cancel := context.WithTimeout(context.Background(), killGrace)
		defer cancel()
		if _, err := s.admin.ExecContext(kctx, fmt.Sprintf("KILL QUERY %d", id)); err != nil {
			dropConn()
			return
		}
		select {
		case <-finished:
		case <-time.After(killGrace):
			dropConn()
		}
	})
	err := f(stmtCtx, s.conn)
	close(finished)
	if stop() {
		return err // ctx did not end during the statement
	}
	<-killed
	s.afterKill()
	if err == nil {
		// The statement ended as the kill came (SLEEP() even returns 1 when killed):
		// its outcome is uncertain, so report the caller's deadline.
		return fmt.Errorf("%w: statement interrupted", ctx.Err())
	}
	return engine.Cancelled(ctx, err)
}

// afterKill makes the session usable after a kill: a KILL QUERY that arrived after the
// statement ended is absorbed by a no-op, and a dropped connection is replaced.
func (s *session) afterKill() {
	ctx, cancel := context.WithTimeout(context.Background(), killGrace)
	defer cancel()
	for range 2 {
		_, err := s.conn.ExecContext(ctx, "DO 0")
		var me *mysqldrv.MySQLError
		if err == nil {
			return
		}
		if errors.As(err, &me) && me.Number == errInterrupted {
			continue
		}
		break
	}
	s.conn.Close()
	_ = s.pin(ctx) // if this fails, the next statement reports the broken connection
}

// linkOf is the link of a session's connection, nil when it has none (a connection
// with TLS or compression, or one database/sql opened in the background).
func linkOf(conn *sql.Conn) *link {
	var l *link
	_ = conn.Raw(func(dc any) error {
		if lc, ok := dc.(linkConn); ok {
			l = lc.link
		}
		return nil
	})
	return l
}

// wireSession is a session whose connection has a link: it implements
// engine.Preparer with the binary protocol (wire.go).
type wireSession struct{ *session }

func (s wireSession) Prepare(ctx context.Context, query string) (engine.Prepared, error) {
	l := s.link
	if l == nil { // a connection pinned after a kill, without one
		return nil, errors.New("mysql: the session's connection has no link")
	}
	var st *stmt
	err := s.onLink(ctx, l, func() (err error) {
		st, err = l.prepare(query)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &prepared{s: s.session, st: st}, nil
}

// onLink runs f, which talks on l, under ctx: when ctx can end, it is stopped with
// KILL QUERY as the driver's statements are (session.run), and if the server does not
// answer that, by a deadline on the socket, which breaks the link.
func (s *session) onLink(ctx context.Context, l *link, f func() error) error {
	if ctx.Done() == nil {
		return f()
	}
	return s.run(ctx, func(stmtCtx context.Context, _ *sql.Conn) error {
		stop := context.AfterFunc(stmtCtx, func() { _ = l.nc.SetDeadline(time.Unix(1, 0)) })
		defer stop()
		return f()
	})
}

// prepared is a statement prepared with the binary protocol on a session's link.
type prepared struct {
	s  *session
	st *stmt
}

func (p *prepared) Run(ctx context.Context, args []any) ([][]byte, bool, error) {
	if _, err := p.exec(ctx, args, false); err != nil {
		return nil, false, err
	}
	return p.st.rows.First(), p.st.rows.Len() > 0, nil
}

func (p *prepared) Query(ctx context.Context, args []any) (*engine.TextRows, error) {
	affected, err := p.exec(ctx, args, true)
	if err != nil {
		return nil, err
	}
	return p.st.rows.Rows(affected), nil
}

// exec runs the statement under ctx as onLink does, without building a closure when
// ctx never ends: the hot loops' case (engine.StmtContext).
func (p *prepared) exec(ctx context.Context, args []any, keepAll bool) (affected int64, err error) {
	if ctx.Done() == nil {
		return p.st.execute(args, keepAll)
	}
	err = p.s.onLink(ctx, p.st.l, func() (err error) {
		affected, err = p.st.execute(args, keepAll)
		return err
	})
	return affected, err
}

func (p *prepared) Close() error { return p.st.close() }
