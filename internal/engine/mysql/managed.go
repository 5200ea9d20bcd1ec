package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"tierbench/internal/engine"
	"tierbench/internal/engine/instance"
)

const (
	startTimeout = 120 * time.Second
	// A clean shutdown flushes the buffer pool, which on an emulated slow disk can take
	// minutes; an instance about to be removed is killed instead.
	stopTimeout   = 10 * time.Minute
	removeTimeout = 10 * time.Second
	// defaultMaxConnections is MariaDB's and MySQL's max_connections unless set; a run
	// with more sessions raises it (engine.Config.MaxConnections).
	defaultMaxConnections = 151
)

var (
	serverNames    = []string{"mariadbd", "mysqld"}
	installerNames = []string{"mariadb-install-db", "mysql_install_db"}
	binGlobs       = []string{"/usr/sbin", "/usr/bin", "/usr/local/mysql/bin", "/usr/local/mysql/scripts"}
)

// instanceDir is a managed server and everything it created.
type instanceDir struct{ instance.Instance }

// Installed reports whether a MariaDB or MySQL server binary for a managed instance
// is on this machine; the error names the package to install.
func Installed() error {
	_, err := instance.Find(serverNames, binGlobs, "mariadb-server")
	return err
}

func openManaged(ctx context.Context, cfg engine.Config) (_ engine.Engine, err error) {
	if cfg.Dir == "" {
		return nil, errors.New("mysql: managed mode needs a directory (Dir) for the instance, or give a DSN")
	}
	server, err := instance.Find(serverNames, binGlobs, "mariadb-server")
	if err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	if err := checkSettings(cfg.Settings); err != nil {
		return nil, err
	}
	version, err := exec.Command(server, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("mysql: %s --version: %w", server, err)
	}
	mariadb := strings.Contains(string(version), "MariaDB")
	var installer string
	if mariadb {
		if installer, err = instance.Find(installerNames, binGlobs, "mariadb-server"); err != nil {
			return nil, fmt.Errorf("mysql: %w", err)
		}
	}
	user, err := instance.ServerUser("mysql")
	if err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	user.Env = cfg.Env

	m := &instanceDir{instance.Instance{User: user, DataDir: filepath.Join(cfg.Dir, "mysql"), Traversable: cfg.Traversable}}
	_, statErr := os.Stat(filepath.Join(m.DataDir, "mysql"))
	reuse := statErr == nil
	if cfg.MustExist && !reuse {
		return nil, &engine.NoDatabaseError{Engine: "mysql", Dir: cfg.Dir}
	}
	defer func() {
		if err != nil {
			m.stop() // removes what this open created, kept or not
		}
	}()
	if err := m.MkdirAll(cfg.Dir); err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	if err := m.Reach(cfg.Dir); err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	if err := m.MakeRunDir("tierbench-mysql-"); err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	// owned creates dir for the server; a new instance's directories go when it stops
	// unless kept (Started), and when this open fails in any case.
	owned := func(dir string) error {
		if _, err := os.Stat(dir); err == nil && reuse {
			return nil
		}
		return m.MkdirOwned(dir, !reuse)
	}

	// Options both the install and the server need.
	common := []string{"--no-defaults", "--datadir=" + m.DataDir}
	if os.Geteuid() == 0 && !user.Switch {
		common = append(common, "--user=root") // no mysql user: MariaDB runs as root only when told so
	}
	if cfg.WALDir != "" {
		walDir := filepath.Join(cfg.WALDir, "mysql-redo")
		if err := owned(walDir); err != nil {
			return nil, fmt.Errorf("mysql: %w", err)
		}
		common = append(common, "--innodb-log-group-home-dir="+walDir)
	}
	// Temporary files go to TempDir, else inside Dir, never to a /tmp shared with other
	// instances (concurrent installs there collide on temporary table names).
	tempParent := cfg.TempDir
	if tempParent == "" {
		tempParent = cfg.Dir
	}
	tmp := filepath.Join(tempParent, "mysql-temp")
	if err := owned(tmp); err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	common = append(common, "--tmpdir="+tmp)
	if !reuse {
		if err := owned(m.DataDir); err != nil {
			return nil, fmt.Errorf("mysql: %w", err)
		}
		var install *exec.Cmd
		if mariadb {
			args := append(append([]string{}, common...), "--auth-root-authentication-method=normal",
				"--skip-test-db", "--skip-name-resolve")
			install = user.Command(syscall.SIGKILL, installer, args...)
		} else {
			install = user.Command(syscall.SIGKILL, server, append(append([]string{}, common...), "--initialize-insecure")...)
		}
		if err := instance.Run(install); err != nil {
			return nil, fmt.Errorf("mysql: create the instance: %w", err)
		}
	}

	socket := filepath.Join(m.RunDir, "mysqld.sock")
	args := append(append([]string{}, common...),
		"--socket="+socket, "--skip-networking", "--local-infile=1",
		"--pid-file="+filepath.Join(m.RunDir, "mysqld.pid"))
	if cfg.BufferBytes > 0 {
		args = append(args, fmt.Sprintf("--innodb-buffer-pool-size=%d", cfg.BufferBytes))
	}
	if n := cfg.MaxConnections(defaultMaxConnections); n > 0 {
		args = append(args, fmt.Sprintf("--max-connections=%d", n))
	}
	for _, k := range engine.SortedSettings(cfg.Settings) {
		args = append(args, "--"+k+"="+cfg.Settings[k])
	}
	// Without --log-error the server logs to stderr, which goes to the log file.
	m.Proc, err = instance.Start(user.Command(syscall.SIGKILL, server, args...), filepath.Join(m.RunDir, "error.log"))
	if err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}

	dcfg := mysqldrv.NewConfig()
	dcfg.User, dcfg.Net, dcfg.Addr = "root", "unix", socket
	admin, err := mysqldrv.NewConnector(dcfg)
	if err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	adminDB := sql.OpenDB(admin)
	defer adminDB.Close()
	err = m.Proc.WaitReady(ctx, startTimeout, func(ctx context.Context) error { return adminDB.PingContext(ctx) })
	if err != nil {
		return nil, fmt.Errorf("mysql: start the server: %w", err)
	}
	dbName := cfg.DatabaseName()
	// Binary collation: strings compare and sort by their bytes, as in PostgreSQL's C
	// locale and SQLite, so answers agree across engines.
	create := "CREATE DATABASE IF NOT EXISTS `" + strings.ReplaceAll(dbName, "`", "``") + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
	if _, err := adminDB.ExecContext(ctx, create); err != nil {
		return nil, fmt.Errorf("mysql: create database %s: %w", dbName, err)
	}
	dcfg = dcfg.Clone()
	dcfg.DBName = dbName
	e, err := connect(ctx, dcfg, cfg.ThreadSessions())
	if err != nil {
		return nil, err
	}
	if e.applied, err = verifySettings(ctx, e.db, filepath.Join(m.RunDir, "error.log"), cfg.Settings); err != nil {
		engine.ClosePools(e.db, e.sessions)
		return nil, err
	}
	m.Started(cfg.Keep)
	e.mode, e.managed = engine.Managed, m
	return managedEngine{e}, nil
}

// stop stops the server and removes what this run created; it is safe on an instance
// that only partly started.
func (m *instanceDir) stop() error {
	return m.Stop(instance.Stopping{
		Discard: syscall.SIGKILL, DiscardTimeout: removeTimeout, // killed: the data goes anyway
		Clean: syscall.SIGTERM, CleanTimeout: stopTimeout, // shutdown
	})
}
