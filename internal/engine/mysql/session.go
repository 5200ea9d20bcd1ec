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
	s.conn = conn
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
