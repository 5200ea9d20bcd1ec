package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"tierbench/internal/engine"
	"tierbench/internal/engine/blockio"
	"tierbench/internal/engine/insertload"
)

func init() {
	engine.Register(registered{})
	// The driver logs what it also returns as an error (a connection lost, a bad idle
	// connection it retries) to stderr, where the lines land between tierbench's own
	// output. Each failure reaches the caller as the error the driver returns, which
	// tierbench reports; the log lines add nothing, so they go nowhere.
	_ = mysqldrv.SetLogger(&mysqldrv.NopLogger{})
}

// Dialect is MariaDB's and MySQL's SQL.
var Dialect = &engine.Dialect{
	Name:      "mysql",
	Param:     func(int) string { return "?" },
	Analyze:   func(table string) []string { return []string{"ANALYZE TABLE " + table} },
	Begin:     "BEGIN",
	BeginRead: "BEGIN",
	ColumnTypes: map[string]string{"int": "INT", "bigint": "BIGINT", "smallint": "SMALLINT", "float": "DOUBLE",
		"decimal": "DECIMAL(%d,%d)", "varchar": "VARCHAR(%d)", "char": "CHAR(%d)", "text": "TEXT", "date": "DATE", "timestamp": "DATETIME", "blob": "LONGBLOB"},
	TableSuffix: " ENGINE=InnoDB",
	ForUpdate:   " FOR UPDATE",
	Retryable:   retryable,
	// date_add/date_sub with unquoted interval counts; no derived column lists
	// (MariaDB 10.11).
	DateLiteral: func(iso string) string { return "date '" + iso + "'" },
	AddDate: func(iso, n, unit string) string {
		fn := "date_add"
		if abs, neg := strings.CutPrefix(n, "-"); neg {
			fn, n = "date_sub", abs
		}
		return fmt.Sprintf("%s(date '%s', interval %s %s)", fn, iso, n, unit)
	},
	Year: func(expr string) string { return "extract(year from " + expr + ")" },
	Substring: func(expr string, from, n int) string {
		return fmt.Sprintf("substring(%s from %d for %d)", expr, from, n)
	},
	Footprint: engine.Footprint{
		// Measured at SF 1 by scripts/tpch-footprint (docs/tpch.md, "What a run needs").
		TPCHBytesPerSF:   2340 << 20,
		TPCHSessionBytes: 3 << 20,
		// A connection thread after TPC-C's statements: 781 KiB (scripts/session-memory,
		// 20 and 400 users, MariaDB 10.11).
		SessionMemory: 1 << 20,
	},
}

// retryable reports a deadlock (1213) and a lock wait timeout (1205).
func retryable(err error) bool {
	var my *mysqldrv.MySQLError
	return errors.As(err, &my) && (my.Number == 1213 || my.Number == 1205)
}

type mysqlEngine struct {
	db *sql.DB
	// sessions is where Session's connections come from: db, or with threads a pool
	// of blockio connections (engine.ClientIOOf tells which).
	sessions  *sql.DB
	mode      engine.Mode
	localFile bool // the server accepts LOAD DATA LOCAL
	managed   *instanceDir
	// applied are a managed server's settings (Config.Settings) as it reported them.
	applied []engine.AppliedSetting
}

// Open connects to cfg.DSN or starts a managed instance.
func Open(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
	if cfg.DSN == "" {
		return openManaged(ctx, cfg)
	}
	dcfg, err := parseDSN(cfg.DSN)
	if err != nil {
		return nil, fmt.Errorf("mysql: bad DSN %s: %w", engine.RedactDSN(cfg.DSN), engine.RedactError(err, dsnPassword(cfg.DSN)))
	}
	e, err := connect(ctx, dcfg, cfg.ThreadSessions())
	if err != nil {
		return nil, err
	}
	e.mode = engine.External
	return e, nil
}

// parseDSN reads a go-sql-driver DSN or a mysql:// URL.
func parseDSN(dsn string) (*mysqldrv.Config, error) {
	if !strings.HasPrefix(dsn, "mysql://") {
		return mysqldrv.ParseDSN(dsn)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, errors.New("not a valid URL")
	}
	c := mysqldrv.NewConfig()
	c.User = u.User.Username()
	c.Passwd, _ = u.User.Password()
	c.Net, c.Addr = "tcp", u.Host
	if u.Port() == "" {
		c.Addr = net.JoinHostPort(u.Hostname(), "3306")
	}
	c.DBName = strings.TrimPrefix(u.Path, "/")
	if sock := u.Query().Get("socket"); sock != "" {
		c.Net, c.Addr = "unix", sock
	}
	return c, nil
}

func dsnPassword(dsn string) string {
	if c, err := parseDSN(dsn); err == nil {
		return c.Passwd
	}
	return ""
}

// connect opens a pool on dcfg, checks the server answers and whether it takes LOAD
// DATA LOCAL. With threads, sessions come from a second pool whose connections wait
// for the server on a thread of their own (engine.ClientIOThread).
func connect(ctx context.Context, dcfg *mysqldrv.Config, threads bool) (*mysqlEngine, error) {
	dcfg.InterpolateParams = true
	if dcfg.Timeout == 0 {
		dcfg.Timeout = 10 * time.Second
	}
	var d net.Dialer
	dcfg.DialFunc = sniffDial(d.DialContext, dcfg)
	mc, err := mysqldrv.NewConnector(dcfg)
	if err != nil {
		return nil, fmt.Errorf("mysql: %w", engine.RedactError(err, dcfg.Passwd))
	}
	db := sql.OpenDB(connector{mc})
	var localInfile int
	err = db.QueryRowContext(ctx, "SELECT @@local_infile").Scan(&localInfile)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("mysql: cannot connect to %s(%s) as %s, database %q: %w",
			dcfg.Net, dcfg.Addr, dcfg.User, dcfg.DBName, engine.RedactError(err, dcfg.Passwd))
	}
	e := &mysqlEngine{db: db, sessions: db, localFile: localInfile == 1}
	if threads {
		tcfg := dcfg.Clone()
		tcfg.DialFunc = sniffDial(blockio.Dial, dcfg)
		tc, err := mysqldrv.NewConnector(tcfg)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("mysql: %w", engine.RedactError(err, dcfg.Passwd))
		}
		e.sessions = sql.OpenDB(connector{tc})
		// A session's connection is dialled for it and closed with it: pooled idle
		// connections would skip go-sql-driver's liveness check (blockio.Conn has no
		// descriptor for it to probe).
		e.sessions.SetMaxIdleConns(0)
	}
	return e, nil
}

func (e *mysqlEngine) Dialect() *engine.Dialect { return Dialect }
func (e *mysqlEngine) DB() *sql.DB              { return e.db }

func (e *mysqlEngine) Session(ctx context.Context) (engine.Session, error) {
	s, err := newSession(ctx, e.sessions, e.db)
	if err != nil {
		if myErr := (*mysqldrv.MySQLError)(nil); errors.As(err, &myErr) && myErr.Number == errTooManyConnections {
			err = engine.TooManyConnections(err)
		}
		return nil, fmt.Errorf("mysql: %w", err)
	}
	if s.link != nil {
		return wireSession{s}, nil
	}
	return s, nil
}

var readerSeq atomic.Int64

// Load streams r through LOAD DATA LOCAL INFILE, or batched INSERTs when the server
// refuses local files.
func (e *mysqlEngine) Load(ctx context.Context, table string, columns []string, r io.Reader) (int64, error) {
	s, err := newSession(ctx, e.db, e.db)
	if err != nil {
		return 0, fmt.Errorf("mysql: load %s: %w", table, err)
	}
	defer s.Close()
	var n int64
	if e.localFile {
		name := fmt.Sprintf("tierbench-%d", readerSeq.Add(1))
		// Hide r's Close, if any: the driver closes a reader that has one, and r is the
		// caller's.
		mysqldrv.RegisterReaderHandler(name, func() io.Reader { return struct{ io.Reader }{r} })
		defer mysqldrv.DeregisterReaderHandler(name)
		q := fmt.Sprintf("LOAD DATA LOCAL INFILE 'Reader::%s' INTO TABLE %s FIELDS TERMINATED BY '|' LINES TERMINATED BY '|\\n' (%s)",
			name, table, strings.Join(columns, ", "))
		err = s.run(ctx, func(ctx context.Context, conn *sql.Conn) error {
			// Session-only: lets InnoDB bulk-load an empty table (MariaDB 10.7+) instead
			// of checking every row against its unique indexes.
			if _, err := conn.ExecContext(ctx, "SET SESSION unique_checks = 0, foreign_key_checks = 0"); err != nil {
				return err
			}
			res, err := conn.ExecContext(ctx, q)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			if err != nil {
				return err
			}
			return loadWarnings(ctx, conn)
		})
	} else {
		err = s.run(ctx, func(ctx context.Context, conn *sql.Conn) error {
			var err error
			n, err = insertload.Load(ctx, conn, table, columns, r, insertload.Options{
				Param: Dialect.Param, RowsPerStatement: 500, MaxParams: 65535, RowsPerTx: 50_000,
			})
			return err
		})
	}
	if err != nil {
		return n, fmt.Errorf("mysql: load %s: %w", table, err)
	}
	return n, nil
}

// loadWarnings turns LOAD DATA's warnings (a short line, a truncated value: the server
// loads such rows anyway unless in strict mode) into an error.
func loadWarnings(ctx context.Context, conn *sql.Conn) error {
	rows, err := conn.QueryContext(ctx, "SHOW WARNINGS LIMIT 10")
	if err != nil {
		return err
	}
	w, err := engine.ReadRows(rows)
	if err != nil {
		return err
	}
	var msgs []string
	for _, r := range w.Data { // Level, Code, Message
		if len(r) == 3 && r[0] != "Note" && len(msgs) < 3 {
			msgs = append(msgs, r[2])
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("the data does not fit the table: %s", strings.Join(msgs, "; "))
}

// reportedSettings are the server settings that shape a result.
var reportedSettings = []string{
	"innodb_buffer_pool_size", "innodb_flush_method", "innodb_flush_log_at_trx_commit",
	"innodb_doublewrite", "innodb_log_file_size", "innodb_io_capacity", "innodb_use_native_aio",
	"innodb_page_size", "sync_binlog", "log_bin", "local_infile", "tmp_table_size",
	"max_heap_table_size", "sort_buffer_size", "join_buffer_size", "datadir", "tmpdir",
	"innodb_log_group_home_dir", "sql_mode",
}

func (e *mysqlEngine) Info(ctx context.Context) (engine.Info, error) {
	info := engine.Info{Name: "mysql", Mode: e.mode, Settings: map[string]string{}}
	var comment string
	if err := e.db.QueryRowContext(ctx, "SELECT @@version, @@version_comment").Scan(&info.Version, &comment); err != nil {
		return info, fmt.Errorf("mysql: server version: %w", err)
	}
	info.Settings["version_comment"] = comment
	rows, err := e.db.QueryContext(ctx, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('"+strings.Join(reportedSettings, "','")+"')")
	if err != nil {
		return info, fmt.Errorf("mysql: settings: %w", err)
	}
	got, err := engine.ReadRows(rows)
	if err != nil {
		return info, fmt.Errorf("mysql: settings: %w", err)
	}
	for _, r := range got.Data {
		info.Settings[r[0]] = r[1]
	}
	if e.localFile {
		info.Settings["load_method"] = "load data local infile"
	} else {
		info.Settings["load_method"] = "insert (the server has local_infile off)"
	}
	for _, a := range e.applied {
		if a.Value != "" {
			info.Settings[engine.SettingKey(a.Name)] = a.Value
		}
	}
	info.Applied = e.applied
	info.Settings["client_io"] = string(engine.ClientIOOf(e.db, e.sessions))
	if e.managed != nil {
		info.Settings["server_user"] = e.managed.User.Name
		if g := e.managed.Granted; len(g) > 0 {
			info.Settings["server_user_acl"] = "search for " + e.managed.User.Name + " on " + strings.Join(g, ", ")
		}
	}
	return info, nil
}

func (e *mysqlEngine) Close() error {
	var stop func() error
	if e.managed != nil {
		stop = e.managed.stop
	}
	db, sessions := e.db, e.sessions
	e.db, e.sessions = nil, nil
	return engine.CloseServer("mysql", db, sessions, stop)
}

// managedEngine is a mysqlEngine with a server of its own: an engine.Server.
type managedEngine struct{ *mysqlEngine }

func (e managedEngine) ServerPID() int { return e.managed.ServerPID() }

func (e managedEngine) DataDir() string { return e.managed.DataDir }
