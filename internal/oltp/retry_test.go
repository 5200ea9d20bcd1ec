package oltp

import (
	"errors"
	"fmt"
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
