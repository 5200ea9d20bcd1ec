package engine

import (
	"fmt"
	"strings"
)

// Setting is one engine setting tierbench adds for the storage a run is on (an
// emulated tier, a flush method), with the reason it is there. Since and Before bound
// the server's major version the setting exists in (0: any).
type Setting struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Reason string `json:"reason"`
	Since  int    `json:"-"`
	Before int    `json:"-"`
}

// InVersion says whether the setting exists in server major version major; an
// unknown version (0) has only the settings of every version, so a server is never
// passed one it may not know.
func (s Setting) InVersion(major int) bool {
	if s.Since == 0 && s.Before == 0 {
		return true
	}
	if major == 0 {
		return false
	}
	return (s.Since == 0 || major >= s.Since) && (s.Before == 0 || major < s.Before)
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

// IOSettings are what an engine needs so that its I/O reaches storage tierbench
// emulates the way it would reach a device: the settings it gets when a file of it is
// on an emulated device, those of each flush method (or why a method cannot be had),
// and the major version of the server they are chosen for.
type IOSettings struct {
	Emulated []Setting
	Flush    map[FlushMethod][]Setting
	// NoFlush says why a flush method cannot be had, by method.
	NoFlush map[FlushMethod]string
	// NoSeparateWAL says why the WAL cannot go on a tier of its own ("" when it can).
	NoSeparateWAL string
	// ServerMajor returns the major version of the server a managed instance would
	// run; nil when the settings do not depend on it.
	ServerMajor func() (int, error)
	// Preload says how the emulator's preload path enters the engine's I/O; nil when
	// it cannot (emulated tiers then need a FUSE mount). The Emulated settings keep
	// the I/O synchronous on this path as on a mount: the shim times pread, pwrite and
	// fsync, not native AIO, io_uring or sync_file_range.
	Preload *Preload
}

// Preload is how the emulator's preload path reaches an engine's file I/O.
type Preload struct {
	// InProcess says the engine runs inside tierbench (SQLite): a VFS in tierbench's
	// own process hands its I/O to the device models.
	InProcess bool
	// Programs are the programs a managed instance runs on its files (the server and
	// its setup programs, such as initdb). Each is started with Config.Env, which then
	// holds LD_PRELOAD, so each must be a dynamically linked program that is not
	// setuid: the dynamic linker ignores LD_PRELOAD otherwise.
	Programs func() ([]string, error)
}

// IOSetter is implemented by the drivers of engines that need IOSettings.
type IOSetter interface {
	IOSettings() *IOSettings
}

// IOSettingsOf is the I/O settings of the engine registered as name: none for an
// engine whose driver has no IOSetter.
func IOSettingsOf(name string) (*IOSettings, error) {
	d, err := DriverOf(name)
	if err != nil {
		return nil, err
	}
	if s, ok := d.(IOSetter); ok {
		return s.IOSettings(), nil
	}
	return &IOSettings{}, nil
}

// For returns what the engine called name gets at server major version major (0:
// unknown, version-bound settings are left out): the emulation settings when
// emulated, then those of the flush method. A flush method the engine cannot do is an
// error that says why. On an emulated tier the default method is buffered.
func (s *IOSettings) For(name string, emulated bool, method FlushMethod, major int) ([]Setting, error) {
	if why := s.NoFlush[method]; why != "" {
		return nil, fmt.Errorf("--flush-method %s: %s", method, why)
	}
	var out []Setting
	if emulated {
		out = append(out, s.Emulated...)
		if method == "" {
			method = Buffered
		}
	}
	if method != "" {
		fs := s.Flush[method]
		if method == Direct && len(fs) > 0 && !fs[0].InVersion(major) {
			return nil, fmt.Errorf("--flush-method direct: %s %d has no direct I/O (%s came in %d): use buffered, or a newer server",
				name, major, fs[0].Name, fs[0].Since)
		}
		out = append(out, fs...)
	}
	kept := out[:0:0]
	for _, st := range out {
		if st.InVersion(major) {
			kept = append(kept, st)
		}
	}
	return kept, nil
}

// Major is the server major version the settings are chosen for: 0 when they do not
// depend on it.
func (s *IOSettings) Major() (int, error) {
	if s.ServerMajor == nil {
		return 0, nil
	}
	return s.ServerMajor()
}
