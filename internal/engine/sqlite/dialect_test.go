package sqlite

import (
	"errors"
	"fmt"
	"testing"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// TestRetryable: a busy or locked database is worth another attempt; other errors
// are not.
func TestRetryable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{sqlite3.Error{Code: sqlite3.ErrBusy}, true},
		{sqlite3.Error{Code: sqlite3.ErrLocked}, true},
		{sqlite3.Error{Code: sqlite3.ErrConstraint}, false},
		{errors.New("connection reset by peer"), false},
	} {
		if got := Dialect.Retryable(fmt.Errorf("payment: %w", tc.err)); got != tc.want {
			t.Errorf("Retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
