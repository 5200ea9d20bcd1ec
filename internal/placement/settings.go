package placement

import (
	"fmt"

	"tierbench/internal/engine"
	"tierbench/internal/engine/postgres"
)

// engineIO is what one engine needs for placement: the settings that keep its I/O
// honest on an emulated device, its settings for each flush method, and how to learn
// the version of the server tierbench would start.
type engineIO struct {
	emulated []engine.Setting
	flush    map[engine.FlushMethod][]engine.Setting
	// noFlush says why a flush method cannot be had, by method.
	noFlush map[engine.FlushMethod]string
	// version returns the major version of the server a managed instance would run
	// (0 when the settings do not depend on it).
	version func() (int, error)
}

// engines holds each engine's placement needs: the differences live here, in one
// value per engine, and nowhere else.
var engines = map[string]engineIO{
	"postgres": {
		emulated: []engine.Setting{
			// The *_flush_after settings make PostgreSQL call sync_file_range(2) after
			// so many kilobytes to start writeback early. That call is no FUSE
			// operation: the device never sees it, and on a real disk it would turn
			// later fsyncs into early writes. 0 leaves writeback to fsync, which the
			// device model does see.
			{Name: "backend_flush_after", Value: "0", Reason: "no sync_file_range(2) writeback hints: FUSE never sees them, so every write reaches the device through fsync"},
			{Name: "bgwriter_flush_after", Value: "0", Reason: "as backend_flush_after, for the background writer"},
			{Name: "checkpoint_flush_after", Value: "0", Reason: "as backend_flush_after, for the checkpointer"},
			{Name: "wal_writer_flush_after", Value: "0", Reason: "the WAL writer flushes with fdatasync only, which the device model counts"},
			// PostgreSQL 18 reads through I/O workers (or io_uring) by default: the reads
			// then come from other processes, ahead of need, and the model sees a queue
			// a 15-17 server would not make. sync keeps each read in the backend that
			// waits for it, so versions compare on the same device.
			{Name: "io_method", Value: "sync", Since: 18, Reason: "reads in the backend that needs them, as before 18, not in I/O workers ahead of time"},
		},
		flush: map[engine.FlushMethod][]engine.Setting{
			// 16 and later: debug_io_direct opens data and WAL files with O_DIRECT (a
			// developer option, the only direct I/O PostgreSQL has).
			engine.Direct: {{Name: "debug_io_direct", Value: "data,wal", Since: 16, Reason: "--flush-method direct: data and WAL files opened with O_DIRECT"}},
		},
		noFlush: map[engine.FlushMethod]string{},
		version: postgres.ServerMajor,
	},
	"mysql": {
		emulated: []engine.Setting{
			// InnoDB submits reads and writes with libaio or io_uring; simulated AIO uses
			// its I/O threads and plain pread/pwrite, the calls every device emulation
			// (FUSE, an LD_PRELOAD shim, a trace) sees one by one (devices.md).
			{Name: "innodb_use_native_aio", Value: "0", Reason: "pread/pwrite from InnoDB's I/O threads instead of libaio/io_uring"},
		},
		flush: map[engine.FlushMethod][]engine.Setting{
			// O_DIRECT is the default of recent versions; on an emulated tier buffered
			// is the default instead (devices.md: innodb_flush_method=fsync with a FUSE
			// mount), so that a pagecache(...) model stands for the host's page cache.
			engine.Buffered: {{Name: "innodb_flush_method", Value: "fsync", Reason: "--flush-method buffered: data files through the page cache, then fsync"}},
			engine.Direct:   {{Name: "innodb_flush_method", Value: "O_DIRECT", Reason: "--flush-method direct: data files opened with O_DIRECT, then fsync"}},
		},
		noFlush: map[engine.FlushMethod]string{},
	},
	"sqlite": {
		emulated: []engine.Setting{
			// A memory-mapped database is read by page faults the kernel serves from its
			// own cache: the device model would not see those reads.
			{Name: "mmap_size", Value: "0", Reason: "no memory-mapped reads: every page read is a read(2) the device sees"},
			// Sorts and indexes that spill go to files in the temp tier (SQLITE_TMPDIR),
			// whatever the build's default temp store is.
			{Name: "temp_store", Value: "FILE", Reason: "spilled sorts and temp indexes go to files on the temp tier, not to memory"},
		},
		flush: map[engine.FlushMethod][]engine.Setting{},
		noFlush: map[engine.FlushMethod]string{
			engine.Direct: "SQLite has no direct I/O: it always reads and writes through the page cache; leave --flush-method out",
		},
	},
}

// EmulatedSettings are the settings an engine gets when any of its files is on an
// emulated device, for every version (Settings picks those of one version).
func EmulatedSettings(engineName string) []engine.Setting {
	return engines[engineName].emulated
}

// Settings returns what placement sets for engineName at server major version major
// (0: unknown, version-bound settings are left out): the emulation settings when
// emulated, then those of the flush method. A flush method the engine cannot do is
// an error that says why. On an emulated tier the default method is buffered.
func Settings(engineName string, emulated bool, method engine.FlushMethod, major int) ([]engine.Setting, error) {
	io, ok := engines[engineName]
	if !ok {
		return nil, fmt.Errorf("placement: unknown engine %q", engineName)
	}
	if why := io.noFlush[method]; why != "" {
		return nil, fmt.Errorf("--flush-method %s: %s", method, why)
	}
	var out []engine.Setting
	if emulated {
		out = append(out, io.emulated...)
		if method == "" {
			method = engine.Buffered
		}
	}
	if method != "" {
		fs := io.flush[method]
		if method == engine.Direct && len(fs) > 0 && !fs[0].InVersion(major) {
			return nil, fmt.Errorf("--flush-method direct: %s %d has no direct I/O (%s came in %d): use buffered, or a newer server",
				engineName, major, fs[0].Name, fs[0].Since)
		}
		out = append(out, fs...)
	}
	kept := out[:0:0]
	for _, s := range out {
		if s.InVersion(major) {
			kept = append(kept, s)
		}
	}
	return kept, nil
}

// ServerMajor is the major version of the server a managed instance of engineName
// would run, or 0 when its settings do not depend on the version.
func ServerMajor(engineName string) (int, error) {
	io := engines[engineName]
	if io.version == nil {
		return 0, nil
	}
	return io.version()
}
