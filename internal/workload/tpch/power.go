package tpch

import (
	"context"
	"fmt"

	"tierbench/internal/progress"
)

// powerTest runs the power test (Clause 5.3.3): on one session, RF1, the 22 queries
// of stream 0 in the order of permutation row 0, then RF2. It uses the next unused
// update set. On an error the intervals measured so far are returned with it.
func (r *runner) powerTest(ctx context.Context) (*PowerResult, error) {
	queries, err := streamQueries(r.d.Name, r.cfg.SF, r.seed, 0, r.cfg.UseDefaultParams)
	if err != nil {
		return nil, fmt.Errorf("power test: %w", err)
	}
	n, err := r.state.reserveUpdateSets(ctx, 1)
	if err != nil {
		return nil, fmt.Errorf("power test: %w", err)
	}
	sets, cleanup, err := prepareUpdateSets(ctx, r.cfg.SF, n, 1, r.cfg.OutDir)
	if err != nil {
		return nil, fmt.Errorf("power test: %w", err)
	}
	defer cleanup()
	set := sets[0]
	sess, err := openQuerySession(ctx, r.eng)
	if err != nil {
		return nil, fmt.Errorf("power test: %w", err)
	}
	defer sess.Close()

	res := &PowerResult{Queries: map[string]float64{}, UpdateSet: n}
	prog := progress.Start(r.cfg.Progress, "power", "steps", int64(len(queries)+2))
	defer prog.Finish()
	r.logf("power: seed %d, update set %d", qgenSeed(r.seed, 0), n)

	var orders int
	if res.RF1, orders, err = timeRefresh(ctx, sess.sess, r.d, set, rf1); err != nil {
		return res, fmt.Errorf("power test: %w", err)
	}
	prog.Add(1)
	r.logf("power: RF1 %d orders %.3fs", orders, res.RF1)
	for _, q := range queries {
		out, err := runQuery(ctx, sess, q, r.cfg.QueryTimeout)
		if err != nil {
			return res, fmt.Errorf("power test: %w", err)
		}
		res.Queries[queryKey(q.Number)] = out.seconds
		if out.timedOut {
			res.TimedOut = append(res.TimedOut, queryKey(q.Number))
			r.logf("power: %s timed out after %.3fs", queryKey(q.Number), out.seconds)
		} else {
			r.logf("power: %s %.3fs", queryKey(q.Number), out.seconds)
		}
		prog.Add(1)
	}
	if sess.reopened > 0 {
		r.logf("power: the session was reopened %d times: the engine closed it when cancelling a query", sess.reopened)
	}
	if res.RF2, orders, err = timeRefresh(ctx, sess.sess, r.d, set, rf2); err != nil {
		return res, fmt.Errorf("power test: %w", err)
	}
	prog.Add(1)
	r.logf("power: RF2 %d orders %.3fs", orders, res.RF2)
	return res, nil
}
