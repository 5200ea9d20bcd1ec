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
