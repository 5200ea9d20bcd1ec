package tpch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/workload/tpch/qgen"
)

// teardownTimeout bounds the clean-up after a cancelled query (dropping Q15's view).
const teardownTimeout = 30 * time.Second

// queryOutcome is one executed query of a stream.
type queryOutcome struct {
	// seconds is QI(i,s), unrounded; for a timed-out query, the time until it was
	// cancelled.
	seconds  float64
	timedOut bool
	rows     *engine.Rows
}

// queryKey is the name a query's interval is recorded under ("Q14").
func queryKey(n int) string { return fmt.Sprintf("Q%d", n) }

// querySession is the session a stream runs on. A server-side cancel can leave a
// driver's connection closed (database/sql then reports "connection is already
// closed"), so after a timeout the stream checks it and opens a new one if needed.
type querySession struct {
	eng  engine.Engine
	sess engine.Session
	// reopened counts the sessions replaced after a timeout, for the log.
	reopened int
}

func openQuerySession(ctx context.Context, eng engine.Engine) (*querySession, error) {
	sess, err := eng.Session(ctx)
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	return &querySession{eng: eng, sess: sess}, nil
}

func (s *querySession) Close() error { return s.sess.Close() }

// recover replaces the session when its connection no longer answers.
func (s *querySession) recover(ctx context.Context) error {
	if s.sess.Conn().PingContext(ctx) == nil {
		return nil
	}
	s.sess.Close()
	sess, err := s.eng.Session(ctx)
	if err != nil {
		return fmt.Errorf("reopen the session after a timeout: %w", err)
	}
	s.sess = sess
	s.reopened++
	return nil
}

// runQuery executes q on the session and times it as Clause 5.3 says: from
// submitting the first statement to reading the last row, with Q15's view creation
// and removal inside the interval. With timeout > 0 a query that runs longer is
// cancelled (the engine's session cancels it on the server) and reported as timed
// out, not as an error; an ended ctx is an error.
func runQuery(ctx context.Context, qs *querySession, q qgen.Query, timeout time.Duration) (queryOutcome, error) {
	// A driver may still run a statement whose context has ended (a fast query can
	// finish before its cancel arrives), so an ended ctx starts nothing.
	if ctx.Err() != nil {
		return queryOutcome{}, fmt.Errorf("%s: %w", queryKey(q.Number), context.Cause(ctx))
	}
	qctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		qctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	start := time.Now()
	rows, err := execQuery(qctx, qs.sess, q)
	out := queryOutcome{seconds: time.Since(start).Seconds(), rows: rows}
	if err == nil {
		return out, nil
	}
	if ctx.Err() != nil {
		return out, fmt.Errorf("%s: %w", queryKey(q.Number), context.Cause(ctx))
	}
	if qctx.Err() == nil {
		return out, fmt.Errorf("%s: %w", queryKey(q.Number), err)
	}
	// Timed out. Drivers report a server-side cancel in their own words, so the
	// query context, not the error, says what happened. Q15's view may exist: drop
	// it so the stream's next run of Q15 can create it again.
	out.timedOut, out.rows = true, nil
	tctx, cancel := context.WithTimeout(ctx, teardownTimeout)
	defer cancel()
	if err := qs.recover(tctx); err != nil {
		return out, fmt.Errorf("%s: %w", queryKey(q.Number), err)
	}
	for _, stmt := range q.Teardown {
		if err := qs.sess.Exec(tctx, stmt); err != nil && ctx.Err() != nil {
			return out, fmt.Errorf("%s teardown after timeout: %w", queryKey(q.Number), err)
		}
	}
	return out, nil
}

// execQuery runs Setup, SQL and Teardown. A failing SQL still runs Teardown, so a
// broken query leaves no view behind; the first error is returned.
func execQuery(ctx context.Context, sess engine.Session, q qgen.Query) (*engine.Rows, error) {
	for _, stmt := range q.Setup {
		if err := sess.Exec(ctx, stmt); err != nil {
			return nil, fmt.Errorf("setup: %w", err)
		}
	}
	rows, qerr := sess.Query(ctx, q.SQL)
	if qerr != nil {
		qerr = fmt.Errorf("query: %w", qerr)
	}
	var terr error
	for _, stmt := range q.Teardown {
		if err := sess.Exec(ctx, stmt); err != nil && terr == nil {
			terr = fmt.Errorf("teardown: %w", err)
		}
	}
	if err := errors.Join(qerr, terr); err != nil {
		return nil, err
	}
	return rows, nil
}

// streamQueries returns the queries of stream s (0 = power test) for dialect. The
// stream's seed is the run's seed plus s (Clause 2.1.3.3), which qgen.StreamSeed
// computes; qgen.Stream itself uses the seed it is given, as qgen's -r does.
func streamQueries(dialect string, sf float64, seed int64, s int, useDefault bool) ([]qgen.Query, error) {
	qs, err := qgen.Stream(dialect, sf, qgen.StreamSeed(seed, s), s, useDefault)
	if err != nil {
		return nil, fmt.Errorf("queries of stream %d (%s): %w", s, dialect, err)
	}
	if len(qs) != 22 {
		return nil, fmt.Errorf("queries of stream %d (%s): qgen returned %d queries, want 22", s, dialect, len(qs))
	}
	return qs, nil
}
