package mysql

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"tierbench/internal/engine"
)

// ioStatus are the status variables IOBytes reads. In MariaDB Innodb_data_written
// counts data and doublewrite pages but not the redo log, which is
// Innodb_os_log_written; Innodb_data_read counts pages read from the data files.
var ioStatus = []string{"Innodb_data_read", "Innodb_data_written", "Innodb_os_log_written"}

// ioBytes turns SHOW GLOBAL STATUS rows (name, value) into the counters.
func ioBytes(rows [][]string) (engine.IOBytes, error) {
	got := map[string]int64{}
	for _, r := range rows {
		if len(r) != 2 {
			continue
		}
		v, err := strconv.ParseInt(r[1], 10, 64)
		if err != nil {
			return engine.IOBytes{}, fmt.Errorf("status %s = %q: not a number", r[0], r[1])
		}
		got[r[0]] = v
	}
	for _, name := range ioStatus {
		if _, ok := got[name]; !ok {
			return engine.IOBytes{}, fmt.Errorf("the server has no status variable %s", name)
		}
	}
	return engine.IOBytes{Read: got["Innodb_data_read"],
		Written: got["Innodb_data_written"] + got["Innodb_os_log_written"], Log: got["Innodb_os_log_written"],
		Source: "Innodb_data_read, Innodb_data_written + Innodb_os_log_written"}, nil
}

// IOBytes reads InnoDB's server-wide I/O counters (engine.IOCounter).
// They are read on MariaDB only: MySQL counts its redo log differently across versions
// (5.7 also in Innodb_data_written), which this sum would count twice.
func (e *mysqlEngine) IOBytes(ctx context.Context) (engine.IOBytes, error) {
	var version string
	if err := e.db.QueryRowContext(ctx, "SELECT @@version").Scan(&version); err != nil {
		return engine.IOBytes{}, fmt.Errorf("mysql: I/O counters: %w", err)
	}
	if !strings.Contains(version, "MariaDB") {
		return engine.IOBytes{}, fmt.Errorf("mysql: I/O counters: read on MariaDB only, not on %s", version)
	}
	rows, err := e.db.QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_data_read', 'Innodb_data_written', 'Innodb_os_log_written')")
	if err != nil {
		return engine.IOBytes{}, fmt.Errorf("mysql: I/O counters: %w", err)
	}
	got, err := engine.ReadRows(rows)
	if err != nil {
		return engine.IOBytes{}, fmt.Errorf("mysql: I/O counters: %w", err)
	}
	io, err := ioBytes(got.Data)
	if err != nil {
		return io, fmt.Errorf("mysql: I/O counters: %w", err)
	}
	return io, nil
}
