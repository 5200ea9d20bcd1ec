// Package postgres is the PostgreSQL engine, registered as "postgres", through pgx v5's
// database/sql driver.
//
// External mode (Config.DSN, a URL or key=value string): tierbench connects and never
// changes a setting; Info records the ones that shape a result.
//
// Managed mode (no DSN): tierbench creates a private cluster in <Config.Dir>/postgres with
// initdb and runs the postgres binary itself as a child process (not pg_ctl), listening
// only on a unix socket in a private directory under $TMPDIR (short, so the socket path
// stays under the 107-byte limit, and never on an emulated device). Binaries come from
// PATH, else the highest version under /usr/lib/postgresql/*/bin. PostgreSQL refuses to
// run as root, so as root tierbench runs initdb and the server as the postgres user (or
// nobody) and gives it the directories it needs; the way to Config.Dir must be
// traversable by that user. The server is killed with SIGQUIT if tierbench dies
// (Pdeathsig). Close removes the cluster unless Config.Keep: a cluster about to be
// removed gets an immediate shutdown (SIGQUIT), a kept or reused one a fast shutdown
// (SIGINT, with its checkpoint; killed after ten minutes). A directory that already holds
// a cluster is reused as it is and never removed.
//
// initdb runs with --no-sync: that only skips flushing initdb's own files, which a crash
// in the second after initdb could lose; the server itself runs with the fsync settings
// asked for. It makes startup about a second faster.
//
// shared_buffers comes from Config.BufferBytes, Config.Settings become -c name=value,
// Config.WALDir holds pg_wal (initdb --waldir) and Config.TempDir becomes a tablespace
// named in temp_tablespaces.
//
// Statements are cancelled on the server when their context ends (a cancel request, not
// only a closed socket); the connection stays usable. Load uses COPY FROM STDIN.
package postgres
