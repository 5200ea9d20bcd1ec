package postgres

import (
	"context"
	"fmt"

	"tierbench/internal/engine"
)

// pgIO are the counters IOBytes reads. Up to PostgreSQL 15 the server counts blocks:
// blocks read into shared buffers by every database (pg_stat_database.blks_read) and
// blocks written out of them by checkpoints, the background writer and backends
// (pg_stat_bgwriter); from 16 on, pg_stat_io counts operations of op_bytes each.
// The WAL is pg_stat_wal.wal_bytes (from 14 on) in both cases.
type pgIO struct {
	blocksRead, blocksWritten, blockSize int64
	walBytes                             int64
	// ioRead and ioWritten are pg_stat_io's sums in bytes (16 on; blocks are 0 then).
	ioRead, ioWritten int64
	statIO            bool
}

func (c pgIO) bytes() engine.IOBytes {
	if c.statIO {
		return engine.IOBytes{Read: c.ioRead, Written: c.ioWritten + c.walBytes, Log: c.walBytes,
			Source: "pg_stat_io reads and writes, pg_stat_wal.wal_bytes"}
	}
	return engine.IOBytes{Read: c.blocksRead * c.blockSize,
		Written: c.blocksWritten*c.blockSize + c.walBytes, Log: c.walBytes,
		Source: "pg_stat_database.blks_read, pg_stat_bgwriter buffers written, pg_stat_wal.wal_bytes"}
}

const (
	// pgIOBlocks is for PostgreSQL 14 and 15.
	pgIOBlocks = `SELECT (SELECT coalesce(sum(blks_read), 0) FROM pg_stat_database)::bigint,
	(buffers_checkpoint + buffers_clean + buffers_backend)::bigint,
	current_setting('block_size')::bigint,
	(SELECT wal_bytes FROM pg_stat_wal)::bigint
	FROM pg_stat_bgwriter`
	// pgIOStat is for PostgreSQL 16 and 17 (18 replaced op_bytes by per-operation bytes).
	pgIOStat = `SELECT coalesce(sum(reads * op_bytes), 0)::bigint, coalesce(sum(writes * op_bytes), 0)::bigint,
	(SELECT wal_bytes FROM pg_stat_wal)::bigint
	FROM pg_stat_io`
)

// IOBytes reads the server-wide I/O counters (engine.IOCounter). Backends publish
// their counts about once a second while busy, so a reading can lag by that much.
func (e *pgEngine) IOBytes(ctx context.Context) (engine.IOBytes, error) {
	var version int
	if err := e.db.QueryRowContext(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		return engine.IOBytes{}, fmt.Errorf("postgres: I/O counters: %w", err)
	}
	var c pgIO
	var err error
	switch {
	case version >= 140000 && version < 160000:
		err = e.db.QueryRowContext(ctx, pgIOBlocks).Scan(&c.blocksRead, &c.blocksWritten, &c.blockSize, &c.walBytes)
	case version >= 160000 && version < 180000:
		c.statIO = true
		err = e.db.QueryRowContext(ctx, pgIOStat).Scan(&c.ioRead, &c.ioWritten, &c.walBytes)
	default:
		return engine.IOBytes{}, fmt.Errorf("postgres: I/O counters: not read on server version %d (tierbench reads those of 14 to 17)", version)
	}
	if err != nil {
		return engine.IOBytes{}, fmt.Errorf("postgres: I/O counters: %w", err)
	}
	return c.bytes(), nil
}
