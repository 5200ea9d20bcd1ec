package tpch

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"tierbench/internal/progress"
	"tierbench/internal/workload/tpch/qgen"
)

// throughputTest runs the throughput test (Clause 5.3.4): S query streams in
// parallel, each on its own session running its 22 queries serially, and one
// refresh stream running S RF1/RF2 pairs serially on the next S update sets.
// Ts runs from the first submission to the last completion of any stream.
// Streams[i] of the result holds query stream i+1.
func (r *runner) throughputTest(ctx context.Context) (*ThroughputResult, error) {
	s := r.streams
	streams := make([][]qgen.Query, s)
	for i := range streams {
		qs, err := streamQueries(r.d.Name, r.cfg.SF, r.seed, i+1, r.cfg.UseDefaultParams)
		if err != nil {
			return nil, fmt.Errorf("throughput test: %w", err)
		}
		streams[i] = qs
	}
	first, err := r.state.reserveUpdateSets(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("throughput test: %w", err)
	}
	sets, cleanup, err := prepareUpdateSets(ctx, r.cfg.SF, first, s, r.cfg.OutDir)
	if err != nil {
		return nil, fmt.Errorf("throughput test: %w", err)
	}
	defer cleanup()
	// Sessions are opened before the clock starts: connecting is not part of Ts.
	sessions := make([]*querySession, s+1)
	defer func() {
		for _, sess := range sessions {
			if sess != nil {
				sess.Close()
			}
		}
	}()
	for i := range sessions {
		if sessions[i], err = openQuerySession(ctx, r.eng); err != nil {
			return nil, fmt.Errorf("throughput test: %w", err)
		}
	}

	res := &ThroughputResult{Streams: make([]map[string]float64, s), Refresh: []RefreshPair{}}
	for i := range res.Streams {
		res.Streams[i] = map[string]float64{}
	}
	prog := progress.Start(r.cfg.Progress, "throughput", "steps", int64(s*(22+2)))
	defer prog.Finish()
	r.logf("throughput: %d streams, seeds %d..%d, update sets %d..%d",
		s, qgenSeed(r.seed, 1), qgenSeed(r.seed, s), first, first+s-1)

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		mu   sync.Mutex
		last time.Time
		wg   sync.WaitGroup
	)
	finished := func() {
		mu.Lock()
		if now := time.Now(); now.After(last) {
			last = now
		}
		mu.Unlock()
	}
	start := time.Now()
	for i, queries := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer finished()
			for _, q := range queries {
				out, err := runQuery(ctx, sessions[i], q, r.cfg.QueryTimeout)
				if err != nil {
					cancel(fmt.Errorf("throughput test, stream %d: %w", i+1, err))
					return
				}
				mu.Lock()
				res.Streams[i][queryKey(q.Number)] = out.seconds
				if out.timedOut {
					res.TimedOut = append(res.TimedOut, fmt.Sprintf("stream %d %s", i+1, queryKey(q.Number)))
				}
				mu.Unlock()
				prog.Add(1)
			}
			if sessions[i].reopened > 0 {
				r.logf("throughput: stream %d reopened its session %d times: the engine closed it when cancelling a query", i+1, sessions[i].reopened)
			}
			r.logf("throughput: stream %d done", i+1)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer finished()
		for _, set := range sets {
			pair, err := refreshPair(ctx, sessions[s].sess, r.d, set)
			if err != nil {
				cancel(fmt.Errorf("throughput test, refresh stream: %w", err))
				return
			}
			mu.Lock()
			res.Refresh = append(res.Refresh, pair)
			mu.Unlock()
			prog.Add(2)
			r.logf("throughput: refresh update set %d RF1 %.3fs RF2 %.3fs", set.n, pair.RF1, pair.RF2)
		}
	}()
	wg.Wait()
	res.Seconds = last.Sub(start).Seconds()
	sort.Strings(res.TimedOut)
	if err := context.Cause(ctx); err != nil {
		return res, err
	}
	r.logf("throughput: Ts %.3fs", res.Seconds)
	return res, nil
}
