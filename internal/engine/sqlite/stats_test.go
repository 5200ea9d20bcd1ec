package sqlite

import (
	"context"
	"testing"

	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
)

func openStats(t *testing.T) (engine.Engine, engine.StatsReader) {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Config{Name: "sqlite", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	r, err := e.(engine.StatsSampler).NewStatsReader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return e, r
}

// TestStats: commits, page cache hits and busy waits move with known work; every
// statistic read is in the catalogue. Readings commit nothing: they run no SQL.
func TestStats(t *testing.T) {
	e, _ := openStats(t)
	enginetest.Stats(t, e, enginetest.StatsHarness{})
}

// TestStatsPerFileAndAfterClose: one engine's counts are its own file's, and a
// connection's counts stay in them after it closes.
func TestStatsPerFileAndAfterClose(t *testing.T) {
	ctx := context.Background()
	a, ra := openStats(t)
	_, rb := openStats(t)
	b0 := enginetest.ReadStats(t, rb)
	a0 := enginetest.ReadStats(t, ra) // opening the file may commit (PRAGMA journal_mode)
	db := a.DB()
	for _, q := range []string{"CREATE TABLE x (id INTEGER PRIMARY KEY)", "INSERT INTO x VALUES (1)", "INSERT INTO x VALUES (2)"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	open := enginetest.ReadStats(t, ra)
	if open.Counters[engine.StatCommits]-a0.Counters[engine.StatCommits] != 3 || open.Gauges["sqlite.connections"] < 1 {
		t.Fatalf("after 3 statements in autocommit: %v %v, want 3 commits on at least one connection", open.Counters, open.Gauges)
	}
	db.SetMaxIdleConns(0) // closes the idle connections
	closed := enginetest.ReadStats(t, ra)
	if closed.Gauges["sqlite.connections"] != 0 {
		t.Fatalf("connections %v after closing them all", closed.Gauges["sqlite.connections"])
	}
	for _, name := range []string{engine.StatCommits, engine.StatBufferHits, engine.StatBufferMisses} {
		if closed.Counters[name] < open.Counters[name] {
			t.Errorf("%s fell from %v to %v when the connections closed", name, open.Counters[name], closed.Counters[name])
		}
	}
	if b1 := enginetest.ReadStats(t, rb); b1.Counters[engine.StatCommits] != b0.Counters[engine.StatCommits] {
		t.Errorf("the other file's commits moved from %v to %v", b0.Counters[engine.StatCommits], b1.Counters[engine.StatCommits])
	}
}
