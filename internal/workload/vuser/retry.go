package vuser

import (
	"context"
	"math/rand/v2"
	"time"
)

// MaxAttempts bounds how often a transaction runs after deadlocks or serialization
// failures before it counts as an error.
const MaxAttempts = 10

// Retry runs attempt until it succeeds, fails with an error that is not retryable
// (the engine's Dialect.Retryable), ctx ends, or MaxAttempts attempts have run. Between attempts it sleeps 1 to 5n ms
// (n the attempt, drawn from r) so that colliding transactions part. It returns the
// statements every attempt sent, the retries, and the last attempt's error.
func Retry(ctx context.Context, r *rand.Rand, retryable func(error) bool, attempt func() (int, error)) (queries, retries int, err error) {
	for n := 1; ; n++ {
		q, err := attempt()
		queries += q
		if err == nil || ctx.Err() != nil || !retryable(err) || n >= MaxAttempts {
			return queries, retries, err
		}
		retries++
		time.Sleep(time.Duration(1+r.IntN(5*n)) * time.Millisecond)
	}
}
