package enginetest

import (
	"context"
	"testing"
	"time"

	"tierbench/internal/engine"
)

// statsWait bounds how long Stats waits for a counter the server publishes late
// (PostgreSQL's backends flush theirs about once a second, later on a loaded machine).
const statsWait = 30 * time.Second

// OpenManaged starts a managed instance of cfg.Name in a ServerDir for t, or skips t
// (fails it under CI=true) when installed says the server is missing; it stops when t
// ends.
func OpenManaged(t *testing.T, installed error, cfg engine.Config) engine.Engine {
	t.Helper()
	RequireServer(t, installed)
	cfg.Dir = ServerDir(t)
	e, err := engine.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// ReadStats reads r once and fails t when a statistic is not in r's catalogue or is of
// the other kind.
func ReadStats(t *testing.T, r engine.StatsReader) engine.Stats {
	t.Helper()
	st, err := r.ReadStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cat := r.Catalogue()
	check := func(names map[string]float64, kind engine.StatKind) {
		for name := range names {
			info, ok := engine.FindStat(cat, name)
			if !ok {
				t.Errorf("statistic %s is not in the catalogue", name)
			} else if info.Kind != kind {
				t.Errorf("statistic %s is read as a %s, the catalogue says %s", name, kind, info.Kind)
			}
		}
	}
	check(st.Counters, engine.Counter)
	check(st.Gauges, engine.Gauge)
	return st
}

// StatsHarness says what Stats expects of one engine.
type StatsHarness struct {
	// SelfCommits are the commits one reading of the statistics makes itself.
	SelfCommits int
	// LockGauge, when set, is a gauge besides StatLockWaits that must show the session
	// waiting for a row lock (a wait event).
	LockGauge string
}

// Stats checks an engine's statistics against known work: N committed transactions
// raise StatCommits by N (and by at most h.SelfCommits for each reading and the
// setup's three statements) and StatBufferHits by at least N; while one session holds
// a row's lock, another that writes the row shows in StatLockWaits (and h.LockGauge).
func Stats(t *testing.T, e engine.Engine, h StatsHarness) {
	t.Helper()
	ctx := context.Background()
	sampler, ok := e.(engine.StatsSampler)
	if !ok {
		t.Fatalf("%T is not an engine.StatsSampler", e)
	}
	r, err := sampler.NewStatsReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, b := session(t, e), session(t, e)
	for _, q := range []string{"DROP TABLE IF EXISTS tb_stats", "CREATE TABLE tb_stats (id INTEGER PRIMARY KEY, v INTEGER)", "INSERT INTO tb_stats VALUES (1, 0)"} {
		if err := a.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	d := e.Dialect()
	const n = 25
	// The setup's statements and the reader's own may reach the counters late (PostgreSQL
	// publishes a backend's about once a second), so they bound the rise from above.
	const setup = 3
	before := ReadStats(t, r)
	reads := 2 // NewStatsReader's and before's
	for i := 0; i < n; i++ {
		for _, q := range []string{d.Begin, "UPDATE tb_stats SET v = v + 1 WHERE id = 1", "COMMIT"} {
			if err := a.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	after := waitStats(t, r, &reads, "commits to rise by N", func(st engine.Stats) bool {
		return st.Counters[engine.StatCommits]-before.Counters[engine.StatCommits] >= n
	})
	commits := after.Counters[engine.StatCommits] - before.Counters[engine.StatCommits]
	if most := float64(n + setup + h.SelfCommits*reads); commits > most {
		t.Errorf("commits rose by %v after %d commits and %d readings: want %d to %v", commits, n, reads, n, most)
	}
	if hits := after.Counters[engine.StatBufferHits] - before.Counters[engine.StatBufferHits]; hits < n {
		t.Errorf("buffer hits rose by %v after %d updates of one row: want at least %d", hits, n, n)
	}

	for _, q := range []string{d.Begin, "UPDATE tb_stats SET v = v + 1 WHERE id = 1"} {
		if err := a.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	waiter := make(chan error, 1)
	wctx, cancel := context.WithTimeout(ctx, statsWait+10*time.Second)
	defer cancel()
	go func() {
		err := b.Exec(wctx, d.Begin)
		if err == nil {
			err = b.Exec(wctx, "UPDATE tb_stats SET v = v + 1 WHERE id = 1")
		}
		if err == nil {
			err = b.Exec(wctx, "COMMIT")
		}
		waiter <- err
	}()
	locked := waitStats(t, r, &reads, "a session waiting for the row lock", func(st engine.Stats) bool {
		return st.Gauges[engine.StatLockWaits] >= 1 && (h.LockGauge == "" || st.Gauges[h.LockGauge] >= 1)
	})
	time.Sleep(50 * time.Millisecond) // a wait long enough to count in milliseconds (MariaDB's unit)
	if err := a.Exec(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := <-waiter; err != nil {
		t.Fatalf("the waiting session: %v", err)
	}
	released := waitStats(t, r, &reads, "no session waiting for a lock once it is released", func(st engine.Stats) bool {
		return st.Gauges[engine.StatLockWaits] == 0
	})
	if w0, ok := before.Counters[engine.StatLockWaitSeconds]; ok {
		if w1 := released.Counters[engine.StatLockWaitSeconds]; w1 <= w0 {
			t.Errorf("%s did not rise over a lock wait of 50 ms or more: %v, then %v (%v while waiting)",
				engine.StatLockWaitSeconds, w0, w1, locked.Counters[engine.StatLockWaitSeconds])
		}
	}
}

// waitStats reads r until ok holds or statsWait passes (then t fails, naming what);
// reads counts the readings.
func waitStats(t *testing.T, r engine.StatsReader, reads *int, what string, ok func(engine.Stats) bool) engine.Stats {
	t.Helper()
	deadline := time.Now().Add(statsWait)
	for {
		st := ReadStats(t, r)
		*reads++
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s; last reading: counters %v, gauges %v", statsWait, what, st.Counters, st.Gauges)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
