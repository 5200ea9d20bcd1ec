// Package engine is the small interface tierbench drives databases through, with a
// registry by name. Engines live in subpackages (sqlite, postgres, mysql) and register
// a Driver from init(). Every per-engine fact lives in the engine's package, in values
// of this package's types, and nowhere else: its Dialect (SQL differences, the TPC-H
// query generator's rendering rules, column types, what it can do at once, how it
// reports a conflict worth retrying, its measured footprint on a host), available by
// name without opening the engine (DialectOf), and, on the driver, its IOSettings
// (what keeps its I/O honest on emulated storage and per flush method; IOSetter) and
// what settings it takes (SettingsChecker: a setting it would ignore or refuse fails
// before anything starts; once open, Info.Applied says how each was read back).
//
// Optional interfaces, found by type assertion: a managed engine implements Server
// (the server's pid for OS samplers, its data directory); PostgreSQL and MariaDB
// implement IOCounter (the bytes they say they read and wrote) and their sessions
// Canceller (stop a statement from another goroutine), which StmtContext arms once
// per run so that hot loops give their drivers contexts that never end. Every engine
// implements StatsSampler: its internals (commits, buffer hits and misses, lock waits,
// what sessions wait on) for the monitor, under names every engine shares where they
// mean the same (StatCommits...).
//
// For engine implementations: ReadRows and CellText turn database/sql results into
// Rows, NewConnSession is the Session of a driver whose context cancellation reaches
// the server, Cancelled makes such errors match the context's, and RedactDSN and
// RedactError keep passwords out of messages. Every engine passes the conformance suite
// in package enginetest.
package engine
