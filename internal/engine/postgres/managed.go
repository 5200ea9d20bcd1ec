package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"tierbench/internal/engine"
	"tierbench/internal/engine/instance"
)

const (
	superuser      = "tierbench"
	tempTablespace = "tierbench_temp"
	startTimeout   = 60 * time.Second
	// A fast shutdown writes a checkpoint, which on an emulated slow disk can take
	// minutes; a cluster about to be removed is stopped at once instead.
	stopTimeout   = 10 * time.Minute
	removeTimeout = 10 * time.Second
	// defaultMaxConnections is PostgreSQL's max_connections unless set; a run with
	// more sessions raises it (engine.Config.MaxConnections).
	defaultMaxConnections = 100
)

// binGlobs are where Debian, Ubuntu and source builds put the server binaries.
var binGlobs = []string{"/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin", "/usr/pgsql-*/bin"}

// cluster is a managed server and everything it created.
type cluster struct{ instance.Instance }

// Installed reports whether the PostgreSQL server binaries a managed instance needs
// are on this machine; the error names the package to install.
func Installed() error {
	_, err := instance.Find([]string{"initdb"}, binGlobs, "postgresql")
	return err
}

var versionNumber = regexp.MustCompile(`\(PostgreSQL\) (\d+)`)

// ServerMajor is the major version of the server a managed instance would run: it runs
// `postgres --version` beside the initdb Installed finds. Settings that exist only in
// some versions depend on it.
func ServerMajor() (int, error) {
	initdb, err := instance.Find([]string{"initdb"}, binGlobs, "postgresql")
	if err != nil {
		return 0, fmt.Errorf("postgres: %w", err)
	}
	out, err := exec.Command(filepath.Join(filepath.Dir(initdb), "postgres"), "--version").Output()
	if err != nil {
		return 0, fmt.Errorf("postgres --version: %w", err)
	}
	return parseMajor(string(out))
}

func parseMajor(out string) (int, error) {
	m := versionNumber.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("postgres --version: cannot read a version in %q", strings.TrimSpace(out))
	}
	return strconv.Atoi(m[1])
}

func openManaged(ctx context.Context, cfg engine.Config) (_ engine.Engine, err error) {
	if cfg.Dir == "" {
		return nil, errors.New("postgres: managed mode needs a directory (Dir) for the cluster, or give a DSN")
	}
	initdb, err := instance.Find([]string{"initdb"}, binGlobs, "postgresql")
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := checkSettings(cfg.Settings); err != nil {
		return nil, err
	}
	server := filepath.Join(filepath.Dir(initdb), "postgres")
	if _, err := os.Stat(server); err != nil {
		return nil, fmt.Errorf("postgres: %s has no postgres binary beside it: install it with `apt-get install postgresql`", initdb)
	}
	user, err := instance.ServerUser("postgres", "nobody")
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	user.Env = cfg.Env
	if os.Geteuid() == 0 && !user.Switch {
		return nil, errors.New("postgres: PostgreSQL refuses to run as root and neither a postgres nor a nobody user exists: create one (useradd --system postgres)")
	}

	c := &cluster{instance.Instance{User: user, DataDir: filepath.Join(cfg.Dir, "postgres"), Traversable: cfg.Traversable,
		Leftovers: func(runDir string) { removeShmem(runDir) }}}
	_, statErr := os.Stat(filepath.Join(c.DataDir, "PG_VERSION"))
	reuse := statErr == nil
	if cfg.MustExist && !reuse {
		return nil, &engine.NoDatabaseError{Engine: "postgres", Dir: cfg.Dir}
	}
	defer func() {
		if err != nil {
			c.stop() // removes what this open created, kept or not
		}
	}()
	if err := c.MkdirAll(cfg.Dir); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := c.Reach(cfg.Dir); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := c.MakeRunDir("tierbench-pg-"); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	// owned creates dir for the server; a new cluster's directories go when it stops
	// unless kept (Started), and when this open fails in any case.
	owned := func(dir string) error {
		if _, err := os.Stat(dir); err == nil && reuse {
			return nil
		}
		return c.MkdirOwned(dir, !reuse)
	}
	if !reuse {
		if err := owned(c.DataDir); err != nil {
			return nil, fmt.Errorf("postgres: %w", err)
		}
		args := []string{"-D", c.DataDir, "-U", superuser, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"}
		if cfg.WALDir != "" {
			if err := c.Reach(cfg.WALDir); err != nil {
				return nil, fmt.Errorf("postgres: WAL directory: %w", err)
			}
			walDir := filepath.Join(cfg.WALDir, "postgres-wal")
			if err := owned(walDir); err != nil {
				return nil, fmt.Errorf("postgres: %w", err)
			}
			args = append(args, "--waldir", walDir)
		}
		if err := instance.Run(user.Command(syscall.SIGKILL, initdb, args...)); err != nil {
			return nil, fmt.Errorf("postgres: create the cluster: %w", err)
		}
	}
	var tempDir string
	if cfg.TempDir != "" {
		if err := c.Reach(cfg.TempDir); err != nil {
			return nil, fmt.Errorf("postgres: temp directory: %w", err)
		}
		tempDir = filepath.Join(cfg.TempDir, "postgres-temp")
		if err := owned(tempDir); err != nil {
			return nil, fmt.Errorf("postgres: %w", err)
		}
	}

	args := []string{"-D", c.DataDir, "-k", c.RunDir, "-c", "listen_addresses=", "-c", "logging_collector=off"}
	if cfg.BufferBytes > 0 {
		args = append(args, "-c", fmt.Sprintf("shared_buffers=%dkB", cfg.BufferBytes/1024))
	}
	if n := cfg.MaxConnections(defaultMaxConnections); n > 0 {
		args = append(args, "-c", fmt.Sprintf("max_connections=%d", n))
	}
	if tempDir != "" {
		// Not checked at startup; the tablespace is created below.
		args = append(args, "-c", "temp_tablespaces="+tempTablespace)
	}
	for _, k := range engine.SortedSettings(cfg.Settings) {
		args = append(args, "-c", k+"="+cfg.Settings[k])
	}
	// SIGQUIT on tierbench's death: immediate shutdown, the postmaster takes its
	// backends down with it.
	c.Proc, err = instance.Start(user.Command(syscall.SIGQUIT, server, args...), filepath.Join(c.RunDir, "server.log"))
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	admin, err := pgx.ParseConfig(fmt.Sprintf("host=%s user=%s dbname=postgres", c.RunDir, superuser))
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	err = c.Proc.WaitReady(ctx, startTimeout, func(ctx context.Context) error {
		conn, err := pgx.ConnectConfig(ctx, admin)
		if err != nil {
			return err
		}
		return conn.Close(ctx)
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: start the server: %w", err)
	}
	if err := c.prepare(ctx, admin, cfg.DatabaseName(), tempDir); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	connCfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s user=%s", c.RunDir, superuser))
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	connCfg.Database = cfg.DatabaseName()
	e, err := connect(ctx, connCfg, cfg.ThreadSessions())
	if err != nil {
		return nil, err
	}
	if e.applied, err = verifySettings(ctx, e.db, cfg.Settings); err != nil {
		engine.ClosePools(e.db, e.sessions)
		return nil, err
	}
	c.Started(cfg.Keep)
	e.mode, e.managed = engine.Managed, c
	return managedEngine{e}, nil
}

// prepare creates the database and the temp tablespace when they do not exist.
func (c *cluster) prepare(ctx context.Context, admin *pgx.ConnConfig, database, tempDir string) error {
	conn, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", database).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{database}.Sanitize()); err != nil {
			return fmt.Errorf("create database %s: %w", database, err)
		}
	}
	if tempDir == "" {
		return nil
	}
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_tablespace WHERE spcname = $1)", tempTablespace).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		q := fmt.Sprintf("CREATE TABLESPACE %s LOCATION '%s'", tempTablespace, tempDir)
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// stop stops the server and removes what this run created; it is safe on a cluster
// that only partly started.
func (c *cluster) stop() error {
	return c.Stop(instance.Stopping{
		Discard: syscall.SIGQUIT, DiscardTimeout: removeTimeout, // immediate shutdown: the data goes anyway
		Clean: syscall.SIGINT, CleanTimeout: stopTimeout, // fast shutdown
	})
}
