package mysql

import (
	"testing"

	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
)

// TestStats: commits, buffer hits and lock waits move with known work on a managed
// MariaDB; every statistic read is in the catalogue. The reader's own statements
// commit nothing (Com_commit counts COMMIT statements).
func TestStats(t *testing.T) {
	t.Parallel()
	e := enginetest.OpenManaged(t, Installed(), engine.Config{Name: "mysql",
		Settings: map[string]string{"innodb_flush_log_at_trx_commit": "0"}})
	enginetest.Stats(t, e, enginetest.StatsHarness{})
}

// TestStatusValues: the statistics SHOW GLOBAL STATUS rows become, by hand: hits are
// read requests less reads, the row lock time turns from ms to seconds, the reader's
// own running thread is left out, and a variable the server lacks is left out.
func TestStatusValues(t *testing.T) {
	st := engine.NewStats()
	rows := [][]string{
		{"Com_commit", "120"}, {"Innodb_buffer_pool_read_requests", "10000"}, {"Innodb_buffer_pool_reads", "250"},
		{"Innodb_row_lock_time", "1500"}, {"Threads_running", "5"}, {"Innodb_buffer_pool_pages_dirty", "42"},
	}
	if err := statusValues(rows, st); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{engine.StatCommits: 120, engine.StatBufferHits: 9750, engine.StatBufferMisses: 250,
		engine.StatLockWaitSeconds: 1.5, "mariadb.buffer_pool_read_requests": 10000}
	for name, v := range want {
		if st.Counters[name] != v {
			t.Errorf("counter %s = %v, want %v", name, st.Counters[name], v)
		}
	}
	if st.Gauges[engine.StatSessionsActive] != 4 || st.Gauges["mariadb.buffer_pool_pages_dirty"] != 42 {
		t.Errorf("gauges %v: want sessions_active 4, buffer_pool_pages_dirty 42", st.Gauges)
	}
	if _, ok := st.Counters[engine.StatDeadlocks]; ok {
		t.Errorf("deadlocks read although the server sent no Innodb_deadlocks")
	}
	if err := statusValues([][]string{{"Com_commit", "many"}}, st); err == nil {
		t.Error("a status value that is not a number: no error")
	}
}
