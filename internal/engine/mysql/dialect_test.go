package mysql

import (
	"errors"
	"fmt"
	"testing"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// TestRetryable: deadlocks and lock wait timeouts are worth another attempt; other
// errors are not.
func TestRetryable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&mysqldrv.MySQLError{Number: 1213}, true},
		{&mysqldrv.MySQLError{Number: 1205}, true},
		{&mysqldrv.MySQLError{Number: 1062}, false},
		{errors.New("connection reset by peer"), false},
	} {
		if got := Dialect.Retryable(fmt.Errorf("payment: %w", tc.err)); got != tc.want {
			t.Errorf("Retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
