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

// TestWaitsForIO: which wait events count as waiting for I/O (engine.StatIOWaits).
func TestWaitsForIO(t *testing.T) {
	for _, tc := range []struct {
		class, event string
		io           bool
	}{
		{"IO", "DataFileRead", true}, {"IO", "WALSync", true}, {"LWLock", "WALWrite", true},
		{"LWLock", "BufferIO", true}, {"IPC", "BufferIO", true},
		{"LWLock", "WALInsert", false}, {"Lock", "transactionid", false}, {"CPU", "running", false},
		{"IPC", "SyncRep", false}, {"Client", "ClientRead", false},
	} {
		if got := waitsForIO(tc.class, tc.event); got != tc.io {
			t.Errorf("%s.%s: waits for I/O %v, want %v", tc.class, tc.event, got, tc.io)
		}
	}
}
