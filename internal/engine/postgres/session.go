package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
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
		s.pc = c.Conn().PgConn()
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
