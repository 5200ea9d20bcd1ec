// Package oltp runs transaction mixes declared in YAML: a schema, how to populate it,
// and weighted transactions of parameterised SQL with parameters drawn from
// distributions (uniform, zipfian, TPC-C's NURand, sequences, existing keys, text
// patterns, dates, choices). Parse validates a file and names the file, line and
// field of every problem; Load populates the tables in parallel, deterministically
// for a seed; Transactions implements vuser.Transactions, so runs get package vuser's
// closed and open loops, ramp-up, intervals and sweeps; Run hands its result to the
// run lifecycle after each level, which writes result.json.
// Workload is the mix workload as the registry names it ("oltp", `tierbench oltp
// load|run`), with its two phases and their parameters; docs/oltp.md is its manual.
//
// Mixes stay portable: column types (int, varchar(N), decimal(P,S), date...) and
// :name placeholders are mapped per engine dialect; a statement may carry per-dialect
// text for the rare case that needs it. The bundled mixes (point-select, policy,
// ecommerce, bbs) are embedded from mixes/*.yaml.
//
// The hot path is lean because the harness must not be the bottleneck: each user
// prepares its statements once, on the session's own prepared statements where the
// engine has them (engine.Preparer: PostgreSQL and MariaDB) and else the driver's,
// runs a one-statement transaction in autocommit without BEGIN and COMMIT, and
// executes statements on the driver connection (sql.Conn.Raw), since database/sql
// starts a goroutine per result set to watch a cancellable context.
package oltp
