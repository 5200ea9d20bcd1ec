package placement

import (
	"fmt"
	"strings"
	"tierbench/internal/engine/postgres"
)

// Setting is one engine setting placement adds, with the reason it is there. Since
// and Before bound the server's major version the setting exists in (0: any).
type Setting struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Reason string `json:"reason"`
	Since  int    `json:"-"`
	Before int    `json:"-"`
}

// FlushMethod says how a managed engine writes its data files.
type FlushMethod string

const (
	// Buffered: the engine writes through the operating system's page cache and calls
	// fsync/fdatasync; on an emulated tier the page cache is the spec's pagecache(...)
	// model, if any.
	Buffered FlushMethod = "buffered"
	// Direct: the engine opens its data files with O_DIRECT; on an emulated tier the
	// requests skip the pagecache(...) model (the emulator sees O_DIRECT opens).
	Direct FlushMethod = "direct"
)

// ParseFlushMethod reads --flush-method; "" is the engine's default (buffered on
// emulated tiers).
func ParseFlushMethod(s string) (FlushMethod, error) {
	switch m := FlushMethod(strings.ToLower(strings.TrimSpace(s))); m {
	case "", Buffered, Direct:
		return m, nil
	}
	return "", fmt.Errorf("--flush-method %q: give buffered (through the page cache, then fsync) or direct (O_DIRECT)", s)
}

// engineIO is what one engine needs for placement: the settings that keep its I/O
// honest on an emulated device, its settings for each flush method, and how to learn
// the version of the server tierbench would start.
type engineIO struct {
	emulated []Setting
	flush    map[FlushMethod][]Setting
	// noFlush says why a flush method cannot be had, by method.
	noFlush map[FlushMethod]string
	// version returns the major version of the server a managed instance would run
	// (0 when the settings do not depend on it).
	version func() (int, error)
}

// engines holds each engine's placement needs: the differences live here, in one
// value per engine, and nowhere else.
var engines = map[string]engineIO{
	"postgres": {
		emulated: []Setting{
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
		flush: map[FlushMethod][]Setting{
			// 16 and later: debug_io_direct opens data and WAL files with O_DIRECT (a
			// developer option, the only direct I/O PostgreSQL has).
			Direct: {{Name: "debug_io_direct", Value: "data,wal", Since: 16, Reason: "--flush-method direct: data and WAL files opened with O_DIRECT"}},
		},
		noFlush: map[FlushMethod]string{},
		version: postgres.ServerMajor,
	},
	"mysql": {
		emulated: []Setting{
			// InnoDB submits reads and writes with libaio or io_uring; simulated AIO uses
			// its I/O threads and plain pread/pwrite, the calls every device emulation
			// (FUSE, an LD_PRELOAD shim, a trace) sees one by one (devices.md).
			{Name: "innodb_use_native_aio", Value: "0", Reason: "pread/pwrite from InnoDB's I/O threads instead of libaio/io_uring"},
		},
		flush: map[FlushMethod][]Setting{
			// O_DIRECT is the default of recent versions; on an emulated tier buffered
			// is the default instead (devices.md: innodb_flush_method=fsync with a FUSE
			// mount), so that a pagecache(...) model stands for the host's page cache.
			Buffered: {{Name: "innodb_flush_method", Value: "fsync", Reason: "--flush-method buffered: data files through the page cache, then fsync"}},
			Direct:   {{Name: "innodb_flush_method", Value: "O_DIRECT", Reason: "--flush-method direct: data files opened with O_DIRECT, then fsync"}},
		},
		noFlush: map[FlushMethod]string{},
	},
	"sqlite": {
		emulated: []Setting{
			// A memory-mapped database is read by page faults the kernel serves from its
			// own cache: the device model would not see those reads.
			{Name: "mmap_size", Value: "0", Reason: "no memory-mapped reads: every page read is a read(2) the device sees"},
			// Sorts and indexes that spill go to files in the temp tier (SQLITE_TMPDIR),
			// whatever the build's default temp store is.
			{Name: "temp_store", Value: "FILE", Reason: "spilled sorts and temp indexes go to files on the temp tier, not to memory"},
		},
		flush: map[FlushMethod][]Setting{},
		noFlush: map[FlushMethod]string{
			Direct: "SQLite has no direct I/O: it always reads and writes through the page cache; leave --flush-method out",
		},
	},
}

// EmulatedSettings are the settings an engine gets when any of its files is on an
// emulated device, for every version (Settings picks those of one version).
func EmulatedSettings(engineName string) []Setting {
	return engines[engineName].emulated
}

// Settings returns what placement sets for engineName at server major version major
// (0: unknown, version-bound settings are left out): the emulation settings when
// emulated, then those of the flush method. A flush method the engine cannot do is
// an error that says why. On an emulated tier the default method is buffered.
func Settings(engineName string, emulated bool, method FlushMethod, major int) ([]Setting, error) {
	io, ok := engines[engineName]
	if !ok {
		return nil, fmt.Errorf("placement: unknown engine %q", engineName)
	}
	if why := io.noFlush[method]; why != "" {
		return nil, fmt.Errorf("--flush-method %s: %s", method, why)
	}
	var out []Setting
	if emulated {
		out = append(out, io.emulated...)
		if method == "" {
			method = Buffered
		}
	}
	if method != "" {
		fs := io.flush[method]
		if method == Direct && len(fs) > 0 && !fs[0].inVersion(major) {
			return nil, fmt.Errorf("--flush-method direct: %s %d has no direct I/O (%s came in %d): use buffered, or a newer server",
				engineName, major, fs[0].Name, fs[0].Since)
		}
		out = append(out, fs...)
	}
	kept := out[:0:0]
	for _, s := range out {
		if s.inVersion(major) {
			kept = append(kept, s)
		}
	}
	return kept, nil
}

func (s Setting) inVersion(major int) bool {
	if s.Since == 0 && s.Before == 0 {
		return true
	}
	if major == 0 {
		return false // unknown version: never pass a setting the server may not know
	}
	return (s.Since == 0 || major >= s.Since) && (s.Before == 0 || major < s.Before)
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
