package vuser

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"time"
)

// endTimeout bounds ROLLBACK after a failed attempt and the liveness check after an
// error: a session cancelled on the server, or a dead one, may never answer.
const endTimeout = 5 * time.Second

// Rollback ends the transaction open on a worker's connection after a failed attempt,
// also when the run has ended (ctx done): the transaction must not stay open.
func Rollback(ctx context.Context, conn *sql.Conn) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endTimeout)
	defer cancel()
	_, _ = conn.ExecContext(rctx, "ROLLBACK")
}

// Alive reports whether the server behind a worker's connection still answers; a
// transaction error on a dead connection ends the run (Result.Fatal).
func Alive(ctx context.Context, conn *sql.Conn) bool {
	pctx, cancel := context.WithTimeout(ctx, endTimeout)
	defer cancel()
	return conn.PingContext(pctx) == nil
}

// DropConn closes a worker's connection for good instead of handing it back to the
// pool: the server then frees what the session held (its prepared statements, an open
// transaction) with it, and the client waits for no answer. Discarder workers use it.
func DropConn(conn *sql.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // database/sql closes a bad connection
}
