package mysql

import (
	"context"

	"tierbench/internal/engine"
)

// registered is MariaDB/MySQL with package engine.
type registered struct{}

func (registered) Name() string             { return "mysql" }
func (registered) Dialect() *engine.Dialect { return Dialect }
func (registered) Open(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
	return Open(ctx, cfg)
}
func (registered) IOSettings() *engine.IOSettings { return ioSettings }

// ioSettings keep InnoDB's I/O honest on emulated tiers (engine.IOSetter).
var ioSettings = &engine.IOSettings{
	Emulated: []engine.Setting{
		// InnoDB submits reads and writes with libaio or io_uring; simulated AIO uses
		// its I/O threads and plain pread/pwrite, the calls every device emulation
		// (FUSE, an LD_PRELOAD shim, a trace) sees one by one (docs/devices.md,
		// "Engines on emulated storage").
		{Name: "innodb_use_native_aio", Value: "0", Reason: "pread/pwrite from InnoDB's I/O threads instead of libaio/io_uring"},
	},
	Flush: map[engine.FlushMethod][]engine.Setting{
		// O_DIRECT is the default of recent versions; on an emulated tier buffered is
		// the default instead (docs/devices.md, "Engines on emulated storage"), so
		// that a pagecache(...) model stands for the host's page cache.
		engine.Buffered: {{Name: "innodb_flush_method", Value: "fsync", Reason: "--flush-method buffered: data files through the page cache, then fsync"}},
		engine.Direct:   {{Name: "innodb_flush_method", Value: "O_DIRECT", Reason: "--flush-method direct: data files opened with O_DIRECT, then fsync"}},
	},
	// The server and its install program start with the shim in their environment
	// (Config.Env).
	Preload: &engine.Preload{Programs: serverPrograms},
}

// CheckSettings refuses a setting the installed server would refuse, ignore or
// change, asking it to parse them without starting (engine.SettingsChecker;
// settings.go).
func (registered) CheckSettings(settings map[string]string) error { return checkSettings(settings) }
