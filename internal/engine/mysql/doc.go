// Package mysql is the MariaDB/MySQL engine, registered as "mysql", through
// go-sql-driver/mysql.
//
// External mode (Config.DSN: a go-sql-driver DSN such as user:pass@tcp(host:3306)/db,
// or a mysql://user:pass@host:3306/db URL): tierbench connects and never changes a
// server setting; Info records the ones that shape a result.
//
// Managed mode (no DSN): tierbench creates a private instance in <Config.Dir>/mysql with
// mariadb-install-db (or mysql_install_db; Oracle MySQL: mysqld --initialize-insecure)
// and runs mariadbd/mysqld itself as a child process with --no-defaults, only a unix
// socket (--skip-networking) in a private directory under $TMPDIR, and
// --local-infile=1. As root it runs the install and the server as the mysql user (or,
// when no such user exists, as root with --user=root: MariaDB allows that when asked
// explicitly). The root account is created with an empty password
// (--auth-root-authentication-method=normal) instead of unix_socket authentication, so
// tierbench connects as root whichever OS user it runs as; that is safe because the
// instance has no TCP listener and its socket sits in a 0700 directory. The server dies
// with tierbench (Pdeathsig SIGKILL). Close removes the instance unless Config.Keep: an
// instance about to be removed is simply killed, a kept or reused one gets a clean
// shutdown (SIGTERM; killed after ten minutes). A directory that already holds an
// instance is reused and never removed.
//
// The managed database is utf8mb4 with binary collation, so strings sort by their bytes
// as in PostgreSQL's C locale (which managed PostgreSQL uses) and SQLite.
//
// innodb_buffer_pool_size comes from Config.BufferBytes, innodb_log_group_home_dir from
// Config.WALDir, tmpdir from Config.TempDir (else <Config.Dir>/mysql-temp, never a
// shared /tmp), and Config.Settings become --name=value.
//
// The driver only drops its connection when a context ends, and the server goes on
// running the statement. A Session therefore runs statements under a context the driver
// does not see and, when the caller's context ends, sends KILL QUERY <connection id>
// from another connection: the server stops the statement and the session's connection
// stays usable. Parameters are interpolated by the client (interpolateParams=true) so
// every result comes back in the text protocol, as the server prints it.
//
// A session also prepares statements itself (engine.Preparer, wire.go): COM_STMT_PREPARE
// and COM_STMT_EXECUTE written on the driver's socket between the driver's own
// commands, binary rows decoded to the text the text protocol gives. The dial function
// notes the capabilities the driver negotiates from its handshake response; a
// connection with TLS or compression gets no such statements. The mix workers and
// TPC-C use them: go-sql-driver's work per statement had held tierbench at 0.82 of
// sysbench's point-select TPS.
//
// Load uses LOAD DATA LOCAL INFILE from the reader; LINES TERMINATED BY '|\n' swallows
// dbgen's trailing '|'. When an external server has local_infile off, Load falls back to
// multi-row INSERTs and Info says so (load_method).
package mysql
