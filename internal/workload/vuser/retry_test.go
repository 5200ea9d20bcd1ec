package vuser

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// conflict is a deadlock as an engine's Dialect.Retryable would see one.
type conflict struct{ retry bool }

func (c conflict) Error() string { return fmt.Sprint("conflict, retry ", c.retry) }

func retryable(err error) bool {
	var c conflict
	return errors.As(err, &c) && c.retry
}

func TestRetry(t *testing.T) {
	deadlock := error(conflict{true})
	r := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	// Two deadlocks, then success: 3 attempts of 4 statements each.
	calls := 0
	q, retries, err := Retry(ctx, r, retryable, func() (int, error) {
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
	dup := error(conflict{false})
	calls = 0
	if q, retries, err = Retry(ctx, r, retryable, func() (int, error) { calls++; return 2, dup }); q != 2 || retries != 0 || err != dup || calls != 1 {
		t.Errorf("duplicate key: queries %d retries %d err %v calls %d", q, retries, err, calls)
	}
	// Conflicts every time: MaxAttempts attempts, then the last error.
	calls = 0
	if q, retries, err = Retry(ctx, r, retryable, func() (int, error) { calls++; return 1, deadlock }); calls != MaxAttempts || q != MaxAttempts || retries != MaxAttempts-1 || err != deadlock {
		t.Errorf("always deadlocked: %d calls, queries %d retries %d err %v", calls, q, retries, err)
	}
	// The run ended: no retry.
	ended, cancel := context.WithCancel(ctx)
	cancel()
	calls = 0
	if _, _, err = Retry(ended, r, retryable, func() (int, error) { calls++; return 1, deadlock }); calls != 1 || err != deadlock {
		t.Errorf("after the end: %d calls, err %v", calls, err)
	}
}
