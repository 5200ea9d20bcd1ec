package oltp

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	mysqldrv "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	sqlite3 "github.com/mattn/go-sqlite3"
)

func TestRetryable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "40001"}, true},
		{&pgconn.PgError{Code: "40P01"}, true},
		{&pgconn.PgError{Code: "23505"}, false},
		{&mysqldrv.MySQLError{Number: 1213}, true},
		{&mysqldrv.MySQLError{Number: 1205}, true},
		{&mysqldrv.MySQLError{Number: 1062}, false},
		{sqlite3.Error{Code: sqlite3.ErrBusy}, true},
		{sqlite3.Error{Code: sqlite3.ErrConstraint}, false},
		{errors.New("connection reset by peer"), false},
	} {
		wrapped := fmt.Errorf("payment: %w", tc.err)
		if got := Retryable(wrapped); got != tc.want {
			t.Errorf("Retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestRetry(t *testing.T) {
	deadlock := &pgconn.PgError{Code: "40P01"}
	r := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	// Two deadlocks, then success: 3 attempts of 4 statements each.
	calls := 0
	q, retries, err := Retry(ctx, r, func() (int, error) {
		calls++
		if calls < 3 {
			return 4, deadlock
		}
		return 4, nil
	})
	if q != 12 || retries != 2 || err != nil || calls != 3 {
		t.Errorf("deadlock twice: queries %d retries %d err %v calls %d, want 12 2 nil 3", q, retries, err, calls)
	}
	// A failure that is not a conflict is not retried.
	dup := &pgconn.PgError{Code: "23505"}
	calls = 0
	if q, retries, err = Retry(ctx, r, func() (int, error) { calls++; return 2, dup }); q != 2 || retries != 0 || err != dup || calls != 1 {
		t.Errorf("duplicate key: queries %d retries %d err %v calls %d", q, retries, err, calls)
	}
	// Conflicts every time: MaxAttempts attempts, then the last error.
	calls = 0
	if q, retries, err = Retry(ctx, r, func() (int, error) { calls++; return 1, deadlock }); calls != MaxAttempts || q != MaxAttempts || retries != MaxAttempts-1 || err != deadlock {
		t.Errorf("always deadlocked: %d calls, queries %d retries %d err %v", calls, q, retries, err)
	}
	// The run ended: no retry.
	ended, cancel := context.WithCancel(ctx)
	cancel()
	calls = 0
	if _, _, err = Retry(ended, r, func() (int, error) { calls++; return 1, deadlock }); calls != 1 || err != deadlock {
		t.Errorf("after the end: %d calls, err %v", calls, err)
	}
}
