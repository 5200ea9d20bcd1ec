package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	sqlite3 "github.com/mattn/go-sqlite3"

	"tierbench/internal/engine"
	"tierbench/internal/engine/insertload"
)

// Dialect is SQLite's SQL.
var Dialect = &engine.Dialect{
	Name:    "sqlite",
	Param:   func(int) string { return "?" },
	Analyze: func(string) []string { return []string{"ANALYZE"} },
	// IMMEDIATE takes the write lock at once: two deferred transactions that both want
	// to write would deadlock on the upgrade. A reader needs no lock until it reads.
	Begin:     "BEGIN IMMEDIATE",
	BeginRead: "BEGIN",
	// INTEGER, exactly, makes a one-column integer primary key the rowid. Dates are
	// ISO text, compared as strings; decimals are REAL.
	ColumnTypes: map[string]string{"int": "INTEGER", "bigint": "INTEGER", "smallint": "INTEGER", "float": "REAL",
		"decimal": "REAL", "varchar": "TEXT", "char": "TEXT", "text": "TEXT", "date": "TEXT", "timestamp": "TEXT", "blob": "BLOB"},
	RealDecimals: true,
	// BEGIN IMMEDIATE holds the database's only write lock: nothing to lock per row.
	ForUpdate: "",
	// Load inserts rows as text: \N stays the text \N.
	LoadNULLText: true,
	MaxWriters:   1,
	Retryable:    retryable,
	// date() applies the shifts, strftime extracts the year.
	DateLiteral: func(iso string) string { return "'" + iso + "'" },
	AddDate: func(iso, n, unit string) string {
		if !strings.HasPrefix(n, "-") {
			n = "+" + n
		}
		return fmt.Sprintf("date('%s', '%s %ss')", iso, n, unit)
	},
	Year:      func(expr string) string { return "cast(strftime('%Y', " + expr + ") as integer)" },
	Substring: func(expr string, from, n int) string { return fmt.Sprintf("substr(%s, %d, %d)", expr, from, n) },
	Footprint: engine.Footprint{
		// Measured at SF 1 by scripts/tpch-footprint (docs/tpch.md, "What a run needs").
		TPCHBytesPerSF:   1414 << 20,
		TPCHSessionBytes: 1 << 20,
		BufferPerSession: true, // every connection gets cache_size = Config.BufferBytes
		// A connection's page cache, 2,000 KiB by default, which a connection that
		// reads fills, and 180 KiB beside it (scripts/session-memory: 274 KiB a TPC-C
		// user, of which 95 KiB are tierbench's own, before the caches filled).
		SessionMemory: 2304 << 10,
	},
}

// retryable reports SQLITE_BUSY and SQLITE_LOCKED: another connection holds the lock.
func retryable(err error) bool {
	var lite sqlite3.Error
	return errors.As(err, &lite) && (lite.Code == sqlite3.ErrBusy || lite.Code == sqlite3.ErrLocked)
}

const (
	// Rows per INSERT: measured on a 4-column table, 50-100 rows a statement load
	// fastest (about 450k rows/s); 500 is 20% slower, 2000 35% slower.
	rowsPerStatement = 64
	maxParams        = 32766
	// Rows per transaction: big enough that commits cost nothing, small enough that
	// the WAL does not grow to the size of the table.
	rowsPerTx = 250_000
)

var (
	tempDirMu    sync.Mutex
	tempDirUsers int
	tempDirSet   string
)

type sqliteEngine struct {
	db       *sql.DB
	path     string
	created  bool
	keep     bool
	claimed  bool // holds a reference on the process-wide temp directory
	settings map[string]string
	// applied are Config.Settings as SQLite reported them once applied.
	applied []engine.AppliedSetting
}

// Open opens or creates the database file.
func Open(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
	if cfg.DSN != "" {
		return nil, errors.New("sqlite is embedded: give a directory (Dir), not a DSN")
	}
	if cfg.Dir == "" {
		return nil, errors.New("sqlite: no directory for the database file")
	}
	if cfg.WALDir != "" {
		return nil, errors.New("sqlite: the WAL lives next to the database file; a separate WAL directory is not possible")
	}
	e := &sqliteEngine{path: filepath.Join(cfg.Dir, cfg.DatabaseName()+".db"), keep: cfg.Keep}
	if _, err := os.Stat(e.path); errors.Is(err, os.ErrNotExist) {
		if cfg.MustExist {
			return nil, &engine.NoDatabaseError{Engine: "sqlite", Dir: cfg.Dir}
		}
		e.created = true
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	if err := e.claimTempDir(cfg.TempDir, cfg.Dir); err != nil {
		return nil, err
	}
	if err := checkPragmas(cfg.Settings); err != nil {
		return nil, err
	}
	pragmas := map[string]string{"journal_mode": "WAL", "synchronous": "FULL", "busy_timeout": "30000", "mmap_size": "0"}
	if cfg.BufferBytes > 0 {
		pragmas["cache_size"] = strconv.FormatInt(-cfg.BufferBytes/1024, 10) // negative: KiB
	}
	for k, v := range cfg.Settings {
		pragmas[strings.ToLower(k)] = v
	}
	e.settings = pragmas
	c := &connector{dsn: "file:" + (&url.URL{Path: e.path}).EscapedPath() + "?_txlock=immediate", pragmas: pragmas}
	e.db = sql.OpenDB(c)
	if err := e.db.PingContext(ctx); err != nil {
		e.Close()
		var se *engine.SettingError
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, fmt.Errorf("sqlite: open %s: %w", e.path, err)
	}
	for _, k := range engine.SortedSettings(cfg.Settings) {
		a := c.applied[strings.ToLower(k)]
		a.Name = k // as the run gave it
		e.applied = append(e.applied, a)
	}
	return e, nil
}

// connector applies the PRAGMAs on every new connection and reads each back: a value
// SQLite did not keep fails the connection (pragmas.go).
type connector struct {
	dsn     string
	pragmas map[string]string
	drv     sqlite3.SQLiteDriver

	mu sync.Mutex
	// applied is each PRAGMA as the first connection read it back.
	applied map[string]engine.AppliedSetting
}

func (c *connector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	lite := conn.(*sqlite3.SQLiteConn)
	applied := map[string]engine.AppliedSetting{}
	for _, k := range pragmaOrder(c.pragmas) {
		q := "PRAGMA " + k + " = " + c.pragmas[k]
		if _, err := lite.Exec(q, nil); err != nil {
			conn.Close()
			return nil, fmt.Errorf("%s: %w", q, err)
		}
		got := ""
		if !pragmas[k].writeOnly {
			if got, err = pragmaValue(lite, k); err != nil {
				conn.Close()
				return nil, err
			}
		}
		a, err := readBack(k, c.pragmas[k], got)
		if err != nil {
			conn.Close()
			return nil, err
		}
		applied[k] = a
	}
	c.mu.Lock()
	if c.applied == nil {
		c.applied = applied
	}
	c.mu.Unlock()
	return conn, nil
}

// pragmaValue reads PRAGMA name on conn.
func pragmaValue(conn *sqlite3.SQLiteConn, name string) (string, error) {
	rows, err := conn.Query("PRAGMA "+name, nil)
	if err != nil {
		return "", fmt.Errorf("PRAGMA %s: %w", name, err)
	}
	defer rows.Close()
	dest := make([]driver.Value, len(rows.Columns()))
	if err := rows.Next(dest); err != nil || len(dest) == 0 {
		return "", nil // nothing reported: compared as empty
	}
	return fmt.Sprint(dest[0]), nil
}

func (c *connector) Driver() driver.Driver { return &c.drv }

// claimTempDir points SQLite's process-wide temp directory at dir, or at the database's
// directory when dir is empty. An explicit dir that differs from another open engine's
// is an error; the default gives way to a directory already in use (Info reports which
// one is).
func (e *sqliteEngine) claimTempDir(dir, dbDir string) error {
	explicit := dir != ""
	if !explicit {
		dir = dbDir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sqlite: temp directory: %w", err)
	}
	tempDirMu.Lock()
	defer tempDirMu.Unlock()
	if tempDirUsers > 0 && tempDirSet != dir {
		if explicit {
			return fmt.Errorf("sqlite: the temp directory is process-wide and already %s; cannot also use %s", tempDirSet, dir)
		}
	} else if err := os.Setenv("SQLITE_TMPDIR", dir); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	} else {
		tempDirSet = dir
	}
	tempDirUsers++
	e.claimed = true
	return nil
}

func (e *sqliteEngine) releaseTempDir() {
	if !e.claimed {
		return
	}
	tempDirMu.Lock()
	defer tempDirMu.Unlock()
	tempDirUsers--
	if tempDirUsers == 0 {
		os.Unsetenv("SQLITE_TMPDIR")
		tempDirSet = ""
	}
	e.claimed = false
}

func (e *sqliteEngine) Dialect() *engine.Dialect { return Dialect }
func (e *sqliteEngine) DB() *sql.DB              { return e.db }

func (e *sqliteEngine) Session(ctx context.Context) (engine.Session, error) {
	return engine.NewConnSession(ctx, e.db)
}

func (e *sqliteEngine) Load(ctx context.Context, table string, columns []string, r io.Reader) (int64, error) {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("sqlite: load %s: %w", table, err)
	}
	defer conn.Close()
	n, err := insertload.Load(ctx, conn, table, columns, r, insertload.Options{
		Param: Dialect.Param, RowsPerStatement: rowsPerStatement, MaxParams: maxParams, RowsPerTx: rowsPerTx,
	})
	if err != nil {
		return n, fmt.Errorf("sqlite: load %s: %w", table, err)
	}
	return n, nil
}

func (e *sqliteEngine) Info(ctx context.Context) (engine.Info, error) {
	version, _, _ := sqlite3.Version()
	settings := map[string]string{"file": e.path, "load_method": "insert"}
	for _, p := range []string{"journal_mode", "synchronous", "cache_size", "page_size", "mmap_size", "temp_store"} {
		var v string
		if err := e.db.QueryRowContext(ctx, "PRAGMA "+p).Scan(&v); err != nil {
			return engine.Info{}, fmt.Errorf("sqlite: PRAGMA %s: %w", p, err)
		}
		settings[p] = v
	}
	for k, v := range e.settings {
		if _, ok := settings[k]; !ok {
			settings[k] = v
		}
	}
	for _, a := range e.applied {
		if a.Value != "" {
			settings[strings.ToLower(a.Name)] = a.Value
		}
	}
	tempDirMu.Lock()
	settings["temp_dir"] = tempDirSet
	tempDirMu.Unlock()
	return engine.Info{Name: "sqlite", Version: version, Mode: engine.Embedded, Settings: settings, Applied: e.applied}, nil
}

// Close closes the database; a file this engine created is removed unless Keep.
func (e *sqliteEngine) Close() error {
	var err error
	if e.db != nil {
		err = e.db.Close()
		e.db = nil
	}
	e.releaseTempDir()
	if e.created && !e.keep {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			if rmErr := os.Remove(e.path + suffix); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) && err == nil {
				err = rmErr
			}
		}
	}
	if err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	return nil
}
