package postgres

import (
	"context"
	"testing"

	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
)

// TestStats: commits, buffer hits and lock waits move with known work on a managed
// server; every statistic read is in the catalogue. Each reading runs two statements,
// which PostgreSQL counts as two committed transactions.
func TestStats(t *testing.T) {
	t.Parallel()
	enginetest.RequireServer(t, Installed())
	e, err := engine.Open(context.Background(), engine.Config{Name: "postgres", Dir: enginetest.ServerDir(t),
		Settings: map[string]string{"fsync": "off", "synchronous_commit": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	enginetest.Stats(t, e, enginetest.StatsHarness{SelfCommits: 2, LockGauge: "wait.Lock.transactionid"})
}
