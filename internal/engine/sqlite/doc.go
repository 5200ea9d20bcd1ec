// Package sqlite is the embedded engine, tierbench's default: SQLite through
// mattn/go-sqlite3, registered as "sqlite".
//
// The database is the file <Config.Database>.db in Config.Dir, in WAL mode with
// synchronous=FULL: each commit fsyncs the WAL, as PostgreSQL's synchronous_commit=on
// and InnoDB's innodb_flush_log_at_trx_commit=1 do, so storage comparisons are fair (the
// driver's default, NORMAL, skips that fsync). mmap_size stays 0 so every read goes
// through pread, where an emulated device sees it. Close removes the file if this engine
// created it, unless Config.Keep. Every connection gets cache_size = Config.BufferBytes
// (SQLite's page cache is per connection, so N sessions may use N times that) and
// busy_timeout; Config.Settings are applied as PRAGMAs on every connection. Transactions begin IMMEDIATE so a writer
// waits for the write lock up front instead of failing on an upgrade.
//
// Temporary files: SQLite's temp directory is process-wide (the SQLITE_TMPDIR
// environment variable, read each time SQLite makes a temp file; the
// temp_store_directory PRAGMA is deprecated and global too). The engine sets
// SQLITE_TMPDIR from Config.TempDir, or Config.Dir when that is empty, so temp files
// land on the database's device. Opening a second engine with a different explicit
// TempDir in the same process is an error rather than a silent change; without one, a
// second engine shares the directory already set (Info's temp_dir says which).
//
// DECIMAL columns are REAL: TPC-H answers stay within the spec's tolerance in double
// precision and REAL arithmetic is much faster than SQLite's text-to-number
// conversions; NUMERIC would store 13.00 as the integer 13 and print it so. Dates are
// ISO text, which compares and sorts correctly.
//
// A statement is cancelled with sqlite3_interrupt when its context ends (the driver does
// this), so Session needs nothing beyond the context.
package sqlite
