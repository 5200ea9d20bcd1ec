package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"tierbench/internal/exitstatus"
)

// Mode says who runs the database server.
type Mode string

const (
	// Embedded: the engine runs inside tierbench (SQLite).
	Embedded Mode = "embedded"
	// Managed: tierbench starts a private server instance and removes it afterwards.
	Managed Mode = "managed"
	// External: the user runs the server and gives a DSN; tierbench never changes its settings.
	External Mode = "external"
)

// Config is what a run asks of an engine.
type Config struct {
	// Name is the registered engine name: sqlite, postgres or mysql.
	Name string
	// DSN selects external mode when set.
	DSN string
	// Dir is the directory that holds the embedded database or the managed instance.
	Dir string
	// WALDir and TempDir optionally place the engine's log and temporary files
	// (managed and embedded only; empty means inside Dir).
	WALDir, TempDir string
	// BufferBytes is the buffer size (shared_buffers, innodb_buffer_pool_size, SQLite
	// cache_size); 0 keeps the engine's default.
	BufferBytes int64
	// Settings are extra server settings for a managed instance, name -> value
	// (postgres -c name=value, mariadbd --name=value); for SQLite they are PRAGMAs.
	Settings map[string]string
	// Database names the database tierbench creates: the SQLite file <Database>.db or
	// the managed server's database. Empty means "tierbench". External engines use the
	// database their DSN names.
	Database string
	// ClientIO is how server sessions wait for answers (ClientIOAuto when empty); it
	// does not apply to the embedded SQLite.
	ClientIO ClientIO
	// Sessions is the most sessions the run holds at once (users, streams); 0 when
	// not known. ClientIOAuto decides by it, and a managed server's connection limit
	// follows it (MaxConnections).
	Sessions int
	// Keep leaves the SQLite file or the managed instance's data in place after Close
	// (the server is stopped all the same), so a later run can reuse the loaded data.
	Keep bool
	// MustExist opens only a database that is there already (one a load kept): when Dir
	// holds none, Open returns a *NoDatabaseError and creates nothing.
	MustExist bool
	// Traversable are directories the user gave tierbench for this run (--out, --db, a
	// tier's directory). When one of them, or a directory inside one, keeps a managed
	// server's OS user out (a 0700 directory from mktemp -d, with tierbench as root),
	// that user alone is let through it (an ACL entry granting search); directories
	// outside them are never changed, and an error says what to do.
	Traversable []string
	// Env is added to the environment of a managed server's processes (its setup
	// programs too): placement's LD_PRELOAD shim of the emulator's preload path.
	// Embedded and external engines ignore it.
	Env []string
}

// NoDatabaseError is Open's refusal, under Config.MustExist, of a directory that holds
// no database of the engine.
type NoDatabaseError struct {
	Engine, Dir string
}

func (e *NoDatabaseError) Error() string {
	return fmt.Sprintf("%s: no database in %s: load one first (nothing was created)", e.Engine, e.Dir)
}

// ClientIO is how a session's connection waits for the server.
type ClientIO string

const (
	// ClientIOAuto is ClientIOThread for runs of at most ThreadSessionsPerCPU sessions
	// per CPU, else ClientIOPoller.
	ClientIOAuto ClientIO = "auto"
	// ClientIOThread: each session waits in poll(2) on its own OS thread, as C clients
	// (sysbench, pgbench) do: fewer system calls and context switches a round trip,
	// at the price of a thread per session (internal/engine/blockio).
	ClientIOThread ClientIO = "thread"
	// ClientIOPoller: sessions park in Go's network poller, which serves thousands of
	// connections with a few threads.
	ClientIOPoller ClientIO = "poller"
)

// ThreadSessionsPerCPU bounds the sessions ClientIOAuto gives threads. Measured on 2
// cores (point selects on MariaDB, scripts/overhead): threads reach 1.0x sysbench's TPS
// at 1 user and 0.76x at 4, where the poller reached 0.89x and 0.59-0.66x; at 16 users
// both are alike, at 64 the poller is ahead (24.1k against 21.2k TPS).
const ThreadSessionsPerCPU = 8

// ParseClientIO reads a --client-io value.
func ParseClientIO(s string) (ClientIO, error) {
	switch c := ClientIO(strings.ToLower(strings.TrimSpace(s))); c {
	case "", ClientIOAuto:
		return ClientIOAuto, nil
	case ClientIOThread, ClientIOPoller:
		return c, nil
	}
	return "", fmt.Errorf("%q: give auto, thread or poller", s)
}

// ThreadSessions reports whether sessions get a thread each (ClientIOThread), by
// cfg.ClientIO and, for auto, cfg.Sessions.
func (cfg Config) ThreadSessions() bool {
	switch cfg.ClientIO {
	case ClientIOThread:
		return true
	case ClientIOPoller:
		return false
	}
	return cfg.Sessions > 0 && cfg.Sessions <= ThreadSessionsPerCPU*runtime.NumCPU()
}

// SpareConnections is how many connections a managed server allows beyond a run's
// sessions: tierbench's own pool (setup, I/O counter readings, MariaDB's KILL QUERY)
// and a margin.
const SpareConnections = 10

// MaxConnections is the connection limit a managed server must start with so that
// cfg.Sessions sessions fit (a run of 2000 users on a server that allows 100 would fail
// at user 98), or 0 when the server's default limit def is enough or the user set the
// limit (--set max_connections=N, in either engine's spelling).
func (cfg Config) MaxConnections(def int) int {
	need := cfg.Sessions + SpareConnections
	if cfg.Sessions <= 0 || need <= def {
		return 0
	}
	for k := range cfg.Settings {
		if SettingKey(k) == "max_connections" {
			return 0
		}
	}
	return need
}

// TooManyConnections adds to err, a server's refusal of one more connection, what to
// do about it; engines call it for PostgreSQL's SQLSTATE 53300 and MySQL's error 1040.
func TooManyConnections(err error) error {
	return fmt.Errorf("%w: the server allows fewer connections than this run opens; raise its max_connections (a managed instance sizes it to --users unless --set max_connections=N says otherwise) or run fewer users", err)
}

// Describe is how summaries name the engine's mode: "managed", or with the session
// I/O a server engine chose, "managed, client io thread".
func (i Info) Describe() string {
	if c := i.Settings["client_io"]; c != "" {
		return string(i.Mode) + ", client io " + c
	}
	return string(i.Mode)
}

// ClientIOOf names the mode a server engine chose, for Info.Settings["client_io"], from
// its two pools: sessions is db itself on the poller, a pool of blockio connections
// on threads.
func ClientIOOf(db, sessions *sql.DB) ClientIO {
	if sessions != nil && sessions != db {
		return ClientIOThread
	}
	return ClientIOPoller
}

// ClosePools closes a server engine's pools: sessions when it is a pool of its own,
// then db. Either may be nil.
func ClosePools(db, sessions *sql.DB) error {
	var err error
	if sessions != nil && sessions != db {
		err = sessions.Close()
	}
	if db != nil {
		if dbErr := db.Close(); dbErr != nil {
			err = dbErr
		}
	}
	return err
}

// CloseServer closes a server engine: its pools (ClosePools), then, for a managed
// instance, stop (nil for an external server). The last error is returned, naming
// the engine; a server that had died (*exitstatus.DiedError) names itself and comes
// first, since it is what the run's failures came from.
func CloseServer(name string, db, sessions *sql.DB, stop func() error) error {
	err := ClosePools(db, sessions)
	if stop != nil {
		if stopErr := stop(); stopErr != nil {
			err = stopErr
		}
	}
	died, rest := exitstatus.Split(err)
	if rest != nil {
		rest = fmt.Errorf("%s: close: %w", name, rest)
	}
	errs := make([]error, 0, len(died)+1)
	for _, d := range died {
		errs = append(errs, d)
	}
	return errors.Join(append(errs, rest)...)
}

// DatabaseName is cfg.Database or its default, "tierbench".
func (cfg Config) DatabaseName() string {
	if cfg.Database == "" {
		return "tierbench"
	}
	return cfg.Database
}

// Info describes the engine a result was measured on; it is recorded in result.json.
type Info struct {
	Name     string            `json:"name"`
	Version  string            `json:"version"`
	Mode     Mode              `json:"mode"`
	Settings map[string]string `json:"settings"`
	// Applied are the run's own settings (Config.Settings) as the engine holds them,
	// read back once it opened, and whether each was verified.
	Applied []AppliedSetting `json:"applied_settings,omitempty"`
}

// Rows is a fully read query result. Cells are text: numbers as the server prints them,
// dates as YYYY-MM-DD, NULL as "NULL".
type Rows struct {
	Columns []string
	Data    [][]string
}

// Session is one pinned database session, as a TPC-H stream or a virtual user needs.
type Session interface {
	// Conn is the pinned connection, for transactions and prepared statements.
	Conn() *sql.Conn
	// Exec runs a statement without result rows. When ctx ends, the statement is
	// cancelled on the server, not only abandoned by the client.
	Exec(ctx context.Context, query string, args ...any) error
	// Query runs a statement and reads every row. Cancellation as for Exec.
	Query(ctx context.Context, query string, args ...any) (*Rows, error)
	Close() error
}

// Canceller is implemented by sessions that can stop their statement in flight on the
// server from another goroutine. A hot loop may then give the driver a context that
// never ends, which spares drivers that watch every statement's context (go-sql-driver
// hands each one to a watcher goroutine) that work, and arm Cancel once with
// context.AfterFunc(ctx, s.Cancel). After Cancel the session is only fit to be closed.
type Canceller interface {
	Cancel()
}

// IOCounter is implemented by engines that count the bytes they read from and write to
// their files. Rates over an interval are the difference of two calls; a counter may
// lag by the engine's statistics interval (about a second on PostgreSQL).
type IOCounter interface {
	IOBytes(ctx context.Context) (IOBytes, error)
}

// IOBytes are an engine's cumulative I/O counters, in bytes since the server started
// (or its statistics were reset). Reads are what the engine asked of the OS, page cache
// hits included; Written counts data pages and the write-ahead (redo) log. Source says
// which of the engine's counters they come from.
type IOBytes struct {
	Read, Written int64
	// Log is the part of Written that went to the write-ahead (redo) log.
	Log    int64
	Source string
}

// Engine is one open database: embedded, managed or external.
type Engine interface {
	Dialect() *Dialect
	// DB is a pool for work that needs no pinned session.
	DB() *sql.DB
	Session(ctx context.Context) (Session, error)
	// Load bulk-loads rows in dbgen's format ('|' after every field, one row a line)
	// read from r into table, whose columns are listed in order. It returns the rows loaded.
	// PostgreSQL uses COPY, MySQL/MariaDB LOAD DATA, SQLite prepared inserts in big transactions.
	Load(ctx context.Context, table string, columns []string, r io.Reader) (int64, error)
	Info(ctx context.Context) (Info, error)
	// Close closes connections; a managed engine also stops its server and removes
	// what it created except data the run asked to keep.
	Close() error
}

// Server is implemented by managed engines: the server's process id (for OS samplers
// and tests) and the directory that holds its data.
type Server interface {
	ServerPID() int
	DataDir() string
}
