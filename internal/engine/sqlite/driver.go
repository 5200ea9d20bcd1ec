package sqlite

import (
	"context"

	"tierbench/internal/engine"
)

func init() { engine.Register(registered{}) }

// registered is SQLite with package engine.
type registered struct{}

func (registered) Name() string             { return "sqlite" }
func (registered) Dialect() *engine.Dialect { return Dialect }
func (registered) Open(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
	return Open(ctx, cfg)
}
func (registered) IOSettings() *engine.IOSettings { return ioSettings }

// ioSettings keep SQLite's I/O honest on emulated tiers (engine.IOSetter).
var ioSettings = &engine.IOSettings{
	Emulated: []engine.Setting{
		// A memory-mapped database is read by page faults the kernel serves from its own
		// cache: the device model would not see those reads.
		{Name: "mmap_size", Value: "0", Reason: "no memory-mapped reads: every page read is a read(2) the device sees"},
		// Sorts and indexes that spill go to files in the temp tier (SQLITE_TMPDIR),
		// whatever the build's default temp store is.
		{Name: "temp_store", Value: "FILE", Reason: "spilled sorts and temp indexes go to files on the temp tier, not to memory"},
	},
	NoSeparateWAL: "SQLite keeps its WAL and journal beside the database file, so they cannot go on another tier: " +
		"leave --wal out (they follow --data), or use postgres or mysql to place the WAL apart",
	NoFlush: map[engine.FlushMethod]string{
		engine.Direct: "SQLite has no direct I/O: it always reads and writes through the page cache; leave --flush-method out",
	},
	// SQLite runs in tierbench: the emulator's VFS (emulator/sqlitevfs), the default
	// VFS once a ring is attached, times its reads, writes and syncs.
	Preload: &engine.Preload{InProcess: true},
}

// CheckSettings refuses a setting SQLite would ignore or misread: a PRAGMA it does
// not have, or a value of the wrong form (engine.SettingsChecker; pragmas.go).
func (registered) CheckSettings(settings map[string]string) error { return checkPragmas(settings) }
