package postgres

import (
	"context"

	"tierbench/internal/engine"
)

func init() { engine.Register(registered{}) }

// registered is PostgreSQL with package engine.
type registered struct{}

func (registered) Name() string             { return "postgres" }
func (registered) Dialect() *engine.Dialect { return Dialect }
func (registered) Open(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
	return Open(ctx, cfg)
}
func (registered) IOSettings() *engine.IOSettings { return ioSettings }

// ioSettings keep PostgreSQL's I/O honest on emulated tiers (engine.IOSetter).
var ioSettings = &engine.IOSettings{
	Emulated: []engine.Setting{
		// The *_flush_after settings make PostgreSQL call sync_file_range(2) after so
		// many kilobytes to start writeback early. That call is no FUSE operation: the
		// device never sees it, and on a real disk it would turn later fsyncs into
		// early writes. 0 leaves writeback to fsync, which the device model does see.
		{Name: "backend_flush_after", Value: "0", Reason: "no sync_file_range(2) writeback hints: FUSE never sees them, so every write reaches the device through fsync"},
		{Name: "bgwriter_flush_after", Value: "0", Reason: "as backend_flush_after, for the background writer"},
		{Name: "checkpoint_flush_after", Value: "0", Reason: "as backend_flush_after, for the checkpointer"},
		{Name: "wal_writer_flush_after", Value: "0", Reason: "the WAL writer flushes with fdatasync only, which the device model counts"},
		// PostgreSQL 18 reads through I/O workers (or io_uring) by default: the reads
		// then come from other processes, ahead of need, and the model sees a queue a
		// 15-17 server would not make. sync keeps each read in the backend that waits
		// for it, so versions compare on the same device.
		{Name: "io_method", Value: "sync", Since: 18, Reason: "reads in the backend that needs them, as before 18, not in I/O workers ahead of time"},
	},
	Flush: map[engine.FlushMethod][]engine.Setting{
		// 16 and later: debug_io_direct opens data and WAL files with O_DIRECT (a
		// developer option, the only direct I/O PostgreSQL has).
		engine.Direct: {{Name: "debug_io_direct", Value: "data,wal", Since: 16, Reason: "--flush-method direct: data and WAL files opened with O_DIRECT"}},
	},
	ServerMajor: ServerMajor,
	// The server and initdb start with the shim in their environment (Config.Env).
	Preload: &engine.Preload{Programs: serverPrograms},
}

// CheckSettings refuses a setting the installed server would refuse, asking it to
// parse them without starting (engine.SettingsChecker; settings.go).
func (registered) CheckSettings(settings map[string]string) error { return checkSettings(settings) }
