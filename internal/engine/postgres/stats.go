package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"tierbench/internal/engine"
)

// pgStat is one column the stats query reads: its SQL, the statistic's name, and the
// factor that turns the server's unit into the statistic's (milliseconds to seconds).
type pgStat struct {
	expr  string
	info  engine.StatInfo
	scale float64
}

func pgCounter(expr, name, unit, help string) pgStat {
	return pgStat{expr, engine.StatInfo{Name: name, Kind: engine.Counter, Unit: unit, Help: help}, 1}
}

func msCounter(expr, name, help string) pgStat {
	return pgStat{expr, engine.StatInfo{Name: name, Kind: engine.Counter, Unit: "seconds", Help: help}, 0.001}
}

// pgDatabaseStats are the run's database in pg_stat_database (d), the WAL (w, 14 and
// later) and the sessions waiting for a lock (pg_locks, not granted).
var pgDatabaseStats = []pgStat{
	pgCounter("d.xact_commit", engine.StatCommits, "transactions", "pg_stat_database.xact_commit of the run's database: committed transactions, read-only ones included"),
	pgCounter("d.xact_rollback", engine.StatRollbacks, "transactions", "pg_stat_database.xact_rollback"),
	pgCounter("d.deadlocks", engine.StatDeadlocks, "deadlocks", "pg_stat_database.deadlocks"),
	pgCounter("d.blks_hit", engine.StatBufferHits, "blocks", "pg_stat_database.blks_hit: blocks found in shared_buffers"),
	pgCounter("d.blks_read", engine.StatBufferMisses, "blocks", "pg_stat_database.blks_read: blocks read from the OS (its page cache or the device)"),
	pgCounter("w.wal_bytes", engine.StatLogBytes, "bytes", "pg_stat_wal.wal_bytes"),
	pgCounter("d.tup_returned", "pg.tup_returned", "rows", "pg_stat_database.tup_returned: rows scanned"),
	pgCounter("d.tup_fetched", "pg.tup_fetched", "rows", "pg_stat_database.tup_fetched: rows fetched by index scans"),
	pgCounter("d.tup_inserted", "pg.tup_inserted", "rows", "pg_stat_database.tup_inserted"),
	pgCounter("d.tup_updated", "pg.tup_updated", "rows", "pg_stat_database.tup_updated"),
	pgCounter("d.tup_deleted", "pg.tup_deleted", "rows", "pg_stat_database.tup_deleted"),
	pgCounter("d.temp_files", "pg.temp_files", "files", "pg_stat_database.temp_files: sorts and hashes that spilled"),
	pgCounter("d.temp_bytes", "pg.temp_bytes", "bytes", "pg_stat_database.temp_bytes"),
	pgCounter("d.conflicts", "pg.conflicts", "queries", "pg_stat_database.conflicts: queries cancelled by recovery conflicts"),
	msCounter("d.blk_read_time", "pg.blk_read_s", "pg_stat_database.blk_read_time: time backends spent reading blocks (0 unless track_io_timing)"),
	msCounter("d.blk_write_time", "pg.blk_write_s", "pg_stat_database.blk_write_time (0 unless track_io_timing)"),
	pgCounter("w.wal_records", "pg.wal_records", "records", "pg_stat_wal.wal_records"),
	pgCounter("w.wal_fpi", "pg.wal_fpi", "pages", "pg_stat_wal.wal_fpi: full-page images written to the WAL"),
	pgCounter("w.wal_buffers_full", "pg.wal_buffers_full", "times", "pg_stat_wal.wal_buffers_full: WAL written because wal_buffers were full"),
}

// pgCheckpointStats14 are pg_stat_bgwriter's (b) columns up to PostgreSQL 16.
var pgCheckpointStats14 = []pgStat{
	pgCounter("b.checkpoints_timed", "pg.checkpoints_timed", "checkpoints", "pg_stat_bgwriter.checkpoints_timed"),
	pgCounter("b.checkpoints_req", "pg.checkpoints_req", "checkpoints", "pg_stat_bgwriter.checkpoints_req: checkpoints asked for (max_wal_size reached, CHECKPOINT)"),
	msCounter("b.checkpoint_write_time", "pg.checkpoint_write_s", "pg_stat_bgwriter.checkpoint_write_time"),
	msCounter("b.checkpoint_sync_time", "pg.checkpoint_sync_s", "pg_stat_bgwriter.checkpoint_sync_time"),
	pgCounter("b.buffers_checkpoint", "pg.buffers_checkpoint", "blocks", "pg_stat_bgwriter.buffers_checkpoint: blocks written by checkpoints"),
	pgCounter("b.buffers_clean", "pg.buffers_clean", "blocks", "pg_stat_bgwriter.buffers_clean: blocks written by the background writer"),
	pgCounter("b.maxwritten_clean", "pg.maxwritten_clean", "times", "pg_stat_bgwriter.maxwritten_clean"),
	pgCounter("b.buffers_backend", "pg.buffers_backend", "blocks", "pg_stat_bgwriter.buffers_backend: blocks backends had to write themselves"),
	pgCounter("b.buffers_backend_fsync", "pg.buffers_backend_fsync", "fsyncs", "pg_stat_bgwriter.buffers_backend_fsync"),
	pgCounter("b.buffers_alloc", "pg.buffers_alloc", "blocks", "pg_stat_bgwriter.buffers_alloc"),
}

// pgCheckpointStats17 are pg_stat_checkpointer's (c) and pg_stat_bgwriter's columns
// from PostgreSQL 17, under the same names where they count the same.
var pgCheckpointStats17 = []pgStat{
	pgCounter("c.num_timed", "pg.checkpoints_timed", "checkpoints", "pg_stat_checkpointer.num_timed"),
	pgCounter("c.num_requested", "pg.checkpoints_req", "checkpoints", "pg_stat_checkpointer.num_requested"),
	msCounter("c.write_time", "pg.checkpoint_write_s", "pg_stat_checkpointer.write_time"),
	msCounter("c.sync_time", "pg.checkpoint_sync_s", "pg_stat_checkpointer.sync_time"),
	pgCounter("c.buffers_written", "pg.buffers_checkpoint", "blocks", "pg_stat_checkpointer.buffers_written"),
	pgCounter("b.buffers_clean", "pg.buffers_clean", "blocks", "pg_stat_bgwriter.buffers_clean"),
	pgCounter("b.maxwritten_clean", "pg.maxwritten_clean", "times", "pg_stat_bgwriter.maxwritten_clean"),
	pgCounter("b.buffers_alloc", "pg.buffers_alloc", "blocks", "pg_stat_bgwriter.buffers_alloc"),
}

// pgSessionGauges are read from pg_stat_activity and pg_locks.
var pgSessionGauges = []engine.StatInfo{
	{Name: engine.StatLockWaits, Kind: engine.Gauge, Unit: "sessions", Help: "processes waiting for a lock: those in pg_locks (not granted) or, if more, the client backends waiting on wait_event_type Lock in pg_stat_activity, which is read a moment later"},
	{Name: engine.StatSessionsActive, Kind: engine.Gauge, Unit: "sessions", Help: "client backends in state active (pg_stat_activity), the sampler's own left out"},
	{Name: engine.StatIOWaits, Kind: engine.Gauge, Unit: "sessions", Help: "active client backends waiting for I/O: wait_event_type IO, or for another backend's I/O in flight (LWLock WALWrite, BufferIO; IPC BufferIO from 17)"},
	{Name: "pg.sessions_idle_in_transaction", Kind: engine.Gauge, Unit: "sessions", Help: "client backends idle in a transaction: waiting for their client while they hold its locks"},
	{Name: engine.StatWaitPrefix + "<class>.<event>", Kind: engine.Gauge, Unit: "sessions", Help: "active client backends by wait_event_type and wait_event (pg_stat_activity); CPU.running when they wait on nothing"},
}

// pgStatsQuery reads the run's database's counters in one statement (one round trip).
func pgStatsQuery(stats []pgStat, checkpointer bool) string {
	cols := make([]string, len(stats))
	for i, s := range stats {
		cols[i] = s.expr + "::float8"
	}
	from := "pg_stat_database d, pg_stat_wal w, pg_stat_bgwriter b"
	if checkpointer {
		from += ", pg_stat_checkpointer c"
	}
	return "SELECT " + strings.Join(cols, ", ") +
		", (SELECT count(DISTINCT pid) FROM pg_locks WHERE NOT granted)::float8 FROM " + from +
		" WHERE d.datname = current_database()"
}

// pgActivityQuery counts the client backends by state and wait, leaving out the
// sampler's own.
const pgActivityQuery = `SELECT state, coalesce(wait_event_type, 'CPU'), coalesce(wait_event, 'running'), count(*)
FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND state IS NOT NULL
GROUP BY 1, 2, 3`

// pgStatsReader reads one server's statistics (engine.StatsReader).
type pgStatsReader struct {
	db    *sql.DB
	stats []pgStat
	query string
}

// NewStatsReader asks the server its version once and picks the views it has
// (engine.StatsSampler). PostgreSQL 14 and later: pg_stat_wal came in 14.
func (e *pgEngine) NewStatsReader(ctx context.Context) (engine.StatsReader, error) {
	var version int
	if err := e.db.QueryRowContext(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		return nil, fmt.Errorf("postgres: statistics: %w", err)
	}
	if version < 140000 {
		return nil, fmt.Errorf("postgres: statistics: not read on server version %d (tierbench reads those of 14 and later)", version)
	}
	stats := append([]pgStat(nil), pgDatabaseStats...)
	checkpointer := version >= 170000
	if checkpointer {
		stats = append(stats, pgCheckpointStats17...)
	} else {
		stats = append(stats, pgCheckpointStats14...)
	}
	return &pgStatsReader{db: e.db, stats: stats, query: pgStatsQuery(stats, checkpointer)}, nil
}

func (r *pgStatsReader) Catalogue() []engine.StatInfo {
	out := make([]engine.StatInfo, 0, len(r.stats)+len(pgSessionGauges))
	for _, s := range r.stats {
		out = append(out, s.info)
	}
	return append(out, pgSessionGauges...)
}

func (r *pgStatsReader) ReadStats(ctx context.Context) (engine.Stats, error) {
	st := engine.NewStats()
	vals := make([]sql.NullFloat64, len(r.stats)+1)
	dest := make([]any, len(vals))
	for i := range vals {
		dest[i] = &vals[i]
	}
	if err := r.db.QueryRowContext(ctx, r.query).Scan(dest...); err != nil {
		return st, fmt.Errorf("postgres: statistics: %w", err)
	}
	for i, s := range r.stats {
		if vals[i].Valid {
			st.Counters[s.info.Name] = vals[i].Float64 * s.scale
		}
	}
	st.Gauges[engine.StatLockWaits] = vals[len(r.stats)].Float64
	rows, err := r.db.QueryContext(ctx, pgActivityQuery)
	if err != nil {
		return st, fmt.Errorf("postgres: statistics: sessions: %w", err)
	}
	defer rows.Close()
	active, idleInTxn, ioWaits, lockWaits := 0.0, 0.0, 0.0, 0.0
	for rows.Next() {
		var state, class, event string
		var n float64
		if err := rows.Scan(&state, &class, &event, &n); err != nil {
			return st, fmt.Errorf("postgres: statistics: sessions: %w", err)
		}
		switch state {
		case "active":
			active += n
			st.Gauges[engine.StatWaitPrefix+engine.StatLabel(class)+"."+engine.StatLabel(event)] += n
			if waitsForIO(class, event) {
				ioWaits += n
			}
			if class == "Lock" {
				lockWaits += n
			}
		case "idle in transaction", "idle in transaction (aborted)":
			idleInTxn += n
		}
	}
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("postgres: statistics: sessions: %w", err)
	}
	st.Gauges[engine.StatSessionsActive] = active
	st.Gauges[engine.StatIOWaits] = ioWaits
	st.Gauges[engine.StatLockWaits] = max(st.Gauges[engine.StatLockWaits], lockWaits)
	st.Gauges["pg.sessions_idle_in_transaction"] = idleInTxn
	return st, nil
}

// waitsForIO says whether a backend waiting on wait_event_type class, wait_event event
// waits for I/O: its own (class IO: DataFileRead, WALSync, ...), or another backend's
// that it needs done: the WAL flush a committing backend waits for behind the one
// that flushes (LWLock WALWrite), a buffer another backend is reading (LWLock
// BufferIO up to 16, IPC BufferIO from 17).
func waitsForIO(class, event string) bool {
	switch class {
	case "IO":
		return true
	case "LWLock":
		return event == "WALWrite" || event == "BufferIO"
	case "IPC":
		return event == "BufferIO"
	}
	return false
}
