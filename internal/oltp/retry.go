package oltp

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// MaxAttempts bounds how often a transaction runs after deadlocks or serialization
// failures before it counts as an error.
const MaxAttempts = 10

// Retry runs attempt until it succeeds, fails with an error that is not Retryable,
// ctx ends, or MaxAttempts attempts have run. Between attempts it sleeps 1 to 5n ms
// (n the attempt, drawn from r) so that colliding transactions part. It returns the
// statements every attempt sent, the retries, and the last attempt's error.
func Retry(ctx context.Context, r *rand.Rand, attempt func() (int, error)) (queries, retries int, err error) {
	for n := 1; ; n++ {
		q, err := attempt()
		queries += q
		if err == nil || ctx.Err() != nil || !Retryable(err) || n >= MaxAttempts {
			return queries, retries, err
		}
		retries++
		time.Sleep(time.Duration(1+r.IntN(5*n)) * time.Millisecond)
	}
}

// Retryable reports a deadlock, serialization failure or lock timeout, after which the
// same transaction may succeed when run again.
func Retryable(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "40001" || pg.Code == "40P01"
	}
	var my *mysqldrv.MySQLError
	if errors.As(err, &my) {
		return my.Number == 1213 || my.Number == 1205 // deadlock, lock wait timeout
	}
	var lite sqlite3.Error
	if errors.As(err, &lite) {
		return lite.Code == sqlite3.ErrBusy || lite.Code == sqlite3.ErrLocked
	}
	return false
}
