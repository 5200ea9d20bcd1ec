package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"tierbench/internal/engine"
)

// statusStat is one SHOW GLOBAL STATUS variable the stats reader keeps, with the
// factor that turns its unit into the statistic's (milliseconds to seconds).
type statusStat struct {
	variable string
	info     engine.StatInfo
	scale    float64
}

func statusCounter(variable, name, unit, help string) statusStat {
	return statusStat{variable, engine.StatInfo{Name: name, Kind: engine.Counter, Unit: unit, Help: help}, 1}
}

func statusGauge(variable, name, unit, help string) statusStat {
	return statusStat{variable, engine.StatInfo{Name: name, Kind: engine.Gauge, Unit: unit, Help: help}, 1}
}

// statusStats are the status variables read. A variable the server lacks (MySQL has
// no Innodb_deadlocks) is left out of the reading.
var statusStats = []statusStat{
	statusCounter("Com_commit", engine.StatCommits, "transactions", "Com_commit: COMMIT statements (a statement in autocommit is not counted)"),
	statusCounter("Com_rollback", engine.StatRollbacks, "transactions", "Com_rollback: ROLLBACK statements"),
	statusCounter("Innodb_deadlocks", engine.StatDeadlocks, "deadlocks", "Innodb_deadlocks (MariaDB)"),
	statusCounter("Innodb_buffer_pool_reads", engine.StatBufferMisses, "pages", "Innodb_buffer_pool_reads: page reads the buffer pool could not serve"),
	statusCounter("Innodb_os_log_written", engine.StatLogBytes, "bytes", "Innodb_os_log_written: bytes written to the redo log"),
	{"Innodb_row_lock_time", engine.StatInfo{Name: engine.StatLockWaitSeconds, Kind: engine.Counter, Unit: "seconds", Help: "Innodb_row_lock_time: time spent waiting for row locks"}, 0.001},
	statusCounter("Innodb_buffer_pool_read_requests", "mariadb.buffer_pool_read_requests", "pages", "Innodb_buffer_pool_read_requests: logical page reads"),
	statusCounter("Innodb_row_lock_waits", "mariadb.row_lock_waits", "waits", "Innodb_row_lock_waits: times a row lock had to be waited for"),
	statusGauge("Innodb_row_lock_current_waits", "mariadb.row_lock_current_waits", "waits", "Innodb_row_lock_current_waits"),
	statusCounter("Innodb_data_fsyncs", "mariadb.data_fsyncs", "fsyncs", "Innodb_data_fsyncs: fsync() calls on data and log files"),
	statusCounter("Innodb_data_reads", "mariadb.data_reads", "reads", "Innodb_data_reads: read requests to the data files"),
	statusCounter("Innodb_data_writes", "mariadb.data_writes", "writes", "Innodb_data_writes: write requests to the data and log files"),
	statusCounter("Innodb_data_read", "mariadb.data_read_bytes", "bytes", "Innodb_data_read"),
	statusCounter("Innodb_data_written", "mariadb.data_written_bytes", "bytes", "Innodb_data_written: data and doublewrite pages"),
	statusCounter("Innodb_buffer_pool_wait_free", "mariadb.buffer_pool_wait_free", "waits", "Innodb_buffer_pool_wait_free: waits for a clean page to read into"),
	statusGauge("Innodb_buffer_pool_pages_dirty", "mariadb.buffer_pool_pages_dirty", "pages", "Innodb_buffer_pool_pages_dirty"),
	statusGauge("Innodb_buffer_pool_pages_free", "mariadb.buffer_pool_pages_free", "pages", "Innodb_buffer_pool_pages_free"),
	statusCounter("Innodb_log_waits", "mariadb.log_waits", "waits", "Innodb_log_waits: waits for the log buffer to be flushed"),
	statusCounter("Innodb_rows_read", "mariadb.rows_read", "rows", "Innodb_rows_read"),
	statusCounter("Innodb_rows_inserted", "mariadb.rows_inserted", "rows", "Innodb_rows_inserted"),
	statusCounter("Innodb_rows_updated", "mariadb.rows_updated", "rows", "Innodb_rows_updated"),
	statusCounter("Innodb_rows_deleted", "mariadb.rows_deleted", "rows", "Innodb_rows_deleted"),
	statusCounter("Handler_commit", "mariadb.handler_commit", "commits", "Handler_commit: internal commits, statements in autocommit included"),
	statusCounter("Questions", "mariadb.questions", "statements", "Questions: statements clients sent"),
	statusCounter("Created_tmp_disk_tables", "mariadb.created_tmp_disk_tables", "tables", "Created_tmp_disk_tables: temporary tables that spilled to disk"),
	statusGauge("Threads_connected", "mariadb.threads_connected", "sessions", "Threads_connected"),
}

// threadsRunning becomes StatSessionsActive, less the reader's own thread.
const threadsRunning = "Threads_running"

var mysqlDerived = []engine.StatInfo{
	{Name: engine.StatBufferHits, Kind: engine.Counter, Unit: "pages", Help: "Innodb_buffer_pool_read_requests - Innodb_buffer_pool_reads: logical reads served by the buffer pool"},
	{Name: engine.StatSessionsActive, Kind: engine.Gauge, Unit: "sessions", Help: "Threads_running less the sampler's own"},
	{Name: engine.StatLockWaits, Kind: engine.Gauge, Unit: "sessions", Help: "transactions in state LOCK WAIT (information_schema.INNODB_TRX)"},
	{Name: "mariadb.lock_waiting_s", Kind: engine.Gauge, Unit: "seconds", Help: "how long the transactions waiting for a lock have waited so far, summed (INNODB_TRX.trx_wait_started)"},
	{Name: "mariadb.state.<state>", Kind: engine.Gauge, Unit: "sessions", Help: "sessions running a command, by thread state (information_schema.PROCESSLIST), the sampler's own left out"},
}

const (
	lockWaitQuery = `SELECT COUNT(*), COALESCE(SUM(TIMESTAMPDIFF(MICROSECOND, trx_wait_started, NOW(6))), 0) / 1e6
FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'`
	processStateQuery = `SELECT COALESCE(STATE, ''), COUNT(*) FROM information_schema.PROCESSLIST
WHERE COMMAND NOT IN ('Sleep', 'Daemon', 'Binlog Dump') AND ID <> CONNECTION_ID() GROUP BY 1`
)

// mysqlStatsReader reads a MariaDB or MySQL server's statistics (engine.StatsReader).
type mysqlStatsReader struct {
	db          *sql.DB
	statusQuery string
}

// NewStatsReader is engine.StatsSampler.
func (e *mysqlEngine) NewStatsReader(context.Context) (engine.StatsReader, error) {
	names := make([]string, 0, len(statusStats)+1)
	for _, s := range statusStats {
		names = append(names, s.variable)
	}
	names = append(names, threadsRunning)
	return &mysqlStatsReader{db: e.db,
		statusQuery: "SHOW GLOBAL STATUS WHERE Variable_name IN ('" + strings.Join(names, "', '") + "')"}, nil
}

func (r *mysqlStatsReader) Catalogue() []engine.StatInfo {
	out := make([]engine.StatInfo, 0, len(statusStats)+len(mysqlDerived))
	for _, s := range statusStats {
		out = append(out, s.info)
	}
	return append(out, mysqlDerived...)
}

func (r *mysqlStatsReader) ReadStats(ctx context.Context) (engine.Stats, error) {
	st := engine.NewStats()
	rows, err := r.db.QueryContext(ctx, r.statusQuery)
	if err != nil {
		return st, fmt.Errorf("mysql: statistics: %w", err)
	}
	got, err := engine.ReadRows(rows)
	if err != nil {
		return st, fmt.Errorf("mysql: statistics: %w", err)
	}
	if err := statusValues(got.Data, st); err != nil {
		return st, fmt.Errorf("mysql: statistics: %w", err)
	}
	// INNODB_TRX and PROCESSLIST need the PROCESS privilege on a server given by --dsn:
	// without it the status variables are still read.
	var errs []error
	var waits, waited float64
	if err := r.db.QueryRowContext(ctx, lockWaitQuery).Scan(&waits, &waited); err != nil {
		errs = append(errs, fmt.Errorf("mysql: statistics: lock waits: %w", err))
	} else {
		st.Gauges[engine.StatLockWaits], st.Gauges["mariadb.lock_waiting_s"] = waits, waited
	}
	if err := r.states(ctx, st); err != nil {
		errs = append(errs, fmt.Errorf("mysql: statistics: sessions: %w", err))
	}
	return st, errors.Join(errs...)
}

// states counts the sessions running a command by thread state.
func (r *mysqlStatsReader) states(ctx context.Context, st engine.Stats) error {
	rows, err := r.db.QueryContext(ctx, processStateQuery)
	if err != nil {
		return err
	}
	states, err := engine.ReadRows(rows)
	if err != nil {
		return err
	}
	for _, row := range states.Data {
		n, err := strconv.ParseFloat(row[1], 64)
		if err != nil {
			return fmt.Errorf("sessions in state %q: %q is not a number", row[0], row[1])
		}
		st.Gauges["mariadb.state."+engine.StatLabel(row[0])] += n
	}
	return nil
}

// statusValues turns SHOW GLOBAL STATUS rows (name, value) into st's statistics.
func statusValues(rows [][]string, st engine.Stats) error {
	got := map[string]float64{}
	for _, row := range rows {
		if len(row) != 2 {
			continue
		}
		v, err := strconv.ParseFloat(row[1], 64)
		if err != nil {
			return fmt.Errorf("status %s = %q: not a number", row[0], row[1])
		}
		got[row[0]] = v
	}
	for _, s := range statusStats {
		v, ok := got[s.variable]
		if !ok {
			continue
		}
		if s.info.Kind == engine.Counter {
			st.Counters[s.info.Name] = v * s.scale
		} else {
			st.Gauges[s.info.Name] = v * s.scale
		}
	}
	requests, okReq := got["Innodb_buffer_pool_read_requests"]
	reads, okReads := got["Innodb_buffer_pool_reads"]
	if okReq && okReads {
		st.Counters[engine.StatBufferHits] = max(0, requests-reads)
	}
	if n, ok := got[threadsRunning]; ok {
		st.Gauges[engine.StatSessionsActive] = max(0, n-1)
	}
	return nil
}
