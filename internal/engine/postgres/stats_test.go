package postgres

import (
	"testing"

	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
)

// TestStats: commits, buffer hits and lock waits move with known work on a managed
// server; every statistic read is in the catalogue. Each reading runs two statements,
// which PostgreSQL counts as two committed transactions.
func TestStats(t *testing.T) {
	t.Parallel()
	e := enginetest.OpenManaged(t, Installed(), engine.Config{Name: "postgres",
		Settings: map[string]string{"fsync": "off", "synchronous_commit": "off"}})
	enginetest.Stats(t, e, enginetest.StatsHarness{SelfCommits: 2, LockGauge: "wait.Lock.transactionid"})
}
