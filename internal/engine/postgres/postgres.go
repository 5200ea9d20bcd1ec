package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/stdlib"

	"tierbench/internal/engine"
	"tierbench/internal/engine/blockio"
)

// sqlstateTooManyConnections is too_many_connections: no connection slot is left.
const sqlstateTooManyConnections = "53300"

// Dialect is PostgreSQL's SQL.
var Dialect = &engine.Dialect{
	Name:      "postgres",
	Param:     func(n int) string { return "$" + strconv.Itoa(n) },
	Analyze:   func(table string) []string { return []string{"ANALYZE " + table} },
	Begin:     "BEGIN",
	BeginRead: "BEGIN",
	ColumnTypes: map[string]string{"int": "INTEGER", "bigint": "BIGINT", "smallint": "SMALLINT", "float": "DOUBLE PRECISION",
		"decimal": "DECIMAL(%d,%d)", "varchar": "VARCHAR(%d)", "char": "CHAR(%d)", "text": "TEXT", "date": "DATE", "timestamp": "TIMESTAMP", "blob": "BYTEA"},
	ForUpdate: " FOR UPDATE",
	Retryable: retryable,
	// The spec's SQL-92 date literals, intervals and substring (without Q1's interval
	// leading precision "(3)", which PostgreSQL rejects).
	DateLiteral: func(iso string) string { return "date '" + iso + "'" },
	AddDate: func(iso, n, unit string) string {
		op := "+"
		if abs, neg := strings.CutPrefix(n, "-"); neg {
			op, n = "-", abs
		}
		return fmt.Sprintf("date '%s' %s interval '%s' %s", iso, op, n, unit)
	},
	Year: func(expr string) string { return "extract(year from " + expr + ")" },
	Substring: func(expr string, from, n int) string {
		return fmt.Sprintf("substring(%s from %d for %d)", expr, from, n)
	},
	DerivedColumnList: true,
	Footprint: engine.Footprint{
		// Measured at SF 1 by scripts/tpch-footprint (docs/tpch.md, "What a run needs").
		TPCHBytesPerSF:   2667 << 20,
		TPCHSessionBytes: 36 << 20,
		// A backend after TPC-C's 29 statements: 1,824 KiB of private memory and page
		// tables (scripts/session-memory, 20 and 400 users), and 48 KB of shared memory
		// per max_connections slot, which follows the users.
		SessionMemory: 2 << 20,
	},
}

// retryable reports serialization_failure and deadlock_detected.
func retryable(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40001" || pg.Code == "40P01")
}

type pgEngine struct {
	db *sql.DB
	// sessions is where Session's connections come from: db, or with threads a pool
	// of blockio connections (engine.ClientIOOf tells which).
	sessions *sql.DB
	mode     engine.Mode
	managed  *cluster // nil when external
	// applied are a managed server's settings (Config.Settings) as it reported them.
	applied []engine.AppliedSetting
}

// Open connects to cfg.DSN or starts a managed cluster.
func Open(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
	if cfg.DSN == "" {
		return openManaged(ctx, cfg)
	}
	connCfg, err := pgx.ParseConfig(cfg.DSN)
	if err != nil {
		return nil, fmt.Errorf("postgres: bad DSN %s: %w", engine.RedactDSN(cfg.DSN), engine.RedactError(err, passwordOf(cfg.DSN)))
	}
	e, err := connect(ctx, connCfg, cfg.ThreadSessions())
	if err != nil {
		return nil, err
	}
	e.mode = engine.External
	return e, nil
}

// passwordOf finds a DSN's password for scrubbing messages, without failing.
func passwordOf(dsn string) string {
	if c, err := pgconn.ParseConfig(dsn); err == nil {
		return c.Password
	}
	return ""
}

// connect opens a pool whose connections cancel statements on the server and checks
// that the server answers. With threads, sessions come from a second pool whose
// connections wait for the server on a thread of their own (engine.ClientIOThread).
func connect(ctx context.Context, connCfg *pgx.ConnConfig, threads bool) (*pgEngine, error) {
	connCfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		// Send a cancel request at once; drop the socket only if the server does not
		// answer it within a few seconds.
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 5 * time.Second}
	}
	if connCfg.ConnectTimeout == 0 {
		connCfg.ConnectTimeout = 10 * time.Second
	}
	db := stdlib.OpenDB(*connCfg)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		where := fmt.Sprintf("host %s port %d", connCfg.Host, connCfg.Port)
		if strings.HasPrefix(connCfg.Host, "/") {
			where = "socket " + connCfg.Host + "/.s.PGSQL." + strconv.Itoa(int(connCfg.Port))
		}
		return nil, fmt.Errorf("postgres: cannot connect to %s as %s, database %s: %w",
			where, connCfg.User, connCfg.Database, engine.RedactError(err, connCfg.Password))
	}
	e := &pgEngine{db: db, sessions: db}
	if threads {
		tcfg := connCfg.Copy()
		tcfg.DialFunc = blockio.Dial
		e.sessions = stdlib.OpenDB(*tcfg)
		e.sessions.SetMaxIdleConns(0) // a session's connection is dialled for it
	}
	return e, nil
}

func (e *pgEngine) Dialect() *engine.Dialect { return Dialect }
func (e *pgEngine) DB() *sql.DB              { return e.db }

func (e *pgEngine) Session(ctx context.Context) (engine.Session, error) {
	s, err := newSession(ctx, e.sessions)
	if err != nil {
		if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == sqlstateTooManyConnections {
			err = engine.TooManyConnections(err)
		}
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return s, nil
}

// Load streams r into COPY table FROM STDIN, dropping the '|' dbgen puts after the
// last field.
func (e *pgEngine) Load(ctx context.Context, table string, columns []string, r io.Reader) (int64, error) {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("postgres: load %s: %w", table, err)
	}
	defer conn.Close()
	copySQL := fmt.Sprintf("COPY %s (%s) FROM STDIN WITH (FORMAT text, DELIMITER '|')", table, strings.Join(columns, ", "))
	var rows int64
	err = conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn().PgConn()
		tag, err := pc.CopyFrom(ctx, newTrailingBarFilter(r), copySQL)
		rows = tag.RowsAffected()
		return err
	})
	if err != nil {
		return rows, fmt.Errorf("postgres: load %s: %w", table, err)
	}
	return rows, nil
}

// reportedSettings are the server settings that shape a result.
var reportedSettings = []string{
	"shared_buffers", "work_mem", "maintenance_work_mem", "effective_cache_size",
	"max_parallel_workers_per_gather", "max_parallel_workers", "max_worker_processes",
	"fsync", "synchronous_commit", "full_page_writes", "wal_level", "wal_buffers",
	"max_wal_size", "checkpoint_timeout", "random_page_cost", "effective_io_concurrency",
	"huge_pages", "jit", "temp_tablespaces", "data_checksums",
}

func (e *pgEngine) Info(ctx context.Context) (engine.Info, error) {
	info := engine.Info{Name: "postgres", Mode: e.mode, Settings: map[string]string{"load_method": "copy"}}
	if err := e.db.QueryRowContext(ctx, "SHOW server_version").Scan(&info.Version); err != nil {
		return info, fmt.Errorf("postgres: server version: %w", err)
	}
	rows, err := e.db.QueryContext(ctx, "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY($1)", reportedSettings)
	if err != nil {
		return info, fmt.Errorf("postgres: settings: %w", err)
	}
	got, err := engine.ReadRows(rows)
	if err != nil {
		return info, fmt.Errorf("postgres: settings: %w", err)
	}
	for _, r := range got.Data {
		info.Settings[r[0]] = r[1]
	}
	for _, a := range e.applied {
		info.Settings[a.Name] = a.Value
	}
	info.Applied = e.applied
	info.Settings["client_io"] = string(engine.ClientIOOf(e.db, e.sessions))
	if e.managed != nil {
		info.Settings["data_directory"] = e.managed.DataDir
		info.Settings["server_user"] = e.managed.User.Name
		if g := e.managed.Granted; len(g) > 0 {
			info.Settings["server_user_acl"] = "search for " + e.managed.User.Name + " on " + strings.Join(g, ", ")
		}
	}
	return info, nil
}

func (e *pgEngine) Close() error {
	var stop func() error
	if e.managed != nil {
		stop = e.managed.stop
	}
	db, sessions := e.db, e.sessions
	e.db, e.sessions = nil, nil
	return engine.CloseServer("postgres", db, sessions, stop)
}

// managedEngine is a pgEngine with a server of its own: an engine.Server.
type managedEngine struct{ *pgEngine }

func (e managedEngine) ServerPID() int { return e.managed.ServerPID() }

func (e managedEngine) DataDir() string { return e.managed.DataDir }
