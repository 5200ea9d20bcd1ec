package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
)

// Driver is an engine as it registers: its name, its dialect (static, so that
// callers have the engine's facts without opening it) and how to open it. Optional
// interfaces, found by type assertion: IOSetter (the settings that keep the engine's
// I/O honest on emulated storage and per flush method), SettingsChecker (which
// settings the engine takes, checked before anything starts) and Versioner (the
// version a run would get, without starting it).
type Driver interface {
	Name() string
	Dialect() *Dialect
	Open(ctx context.Context, cfg Config) (Engine, error)
}

var (
	registryMu sync.Mutex
	registry   = map[string]Driver{}
)

// Register makes an engine available by its name; it panics on a duplicate name, as
// database/sql does, because that is a programming error.
func Register(d Driver) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[d.Name()]; dup {
		panic("engine: Register called twice for " + d.Name())
	}
	registry[d.Name()] = d
}

// DriverOf is the driver registered as name.
func DriverOf(name string) (Driver, error) {
	registryMu.Lock()
	d, ok := registry[name]
	registryMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("unknown engine %q: valid engines are %v", name, Names())
	}
	return d, nil
}

// DialectOf is the dialect of the engine registered as name, without opening it.
func DialectOf(name string) (*Dialect, error) {
	d, err := DriverOf(name)
	if err != nil {
		return nil, err
	}
	return d.Dialect(), nil
}

// Names lists the registered engines, sorted.
func Names() []string {
	registryMu.Lock()
	defer registryMu.Unlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Open opens the engine cfg.Name.
func Open(ctx context.Context, cfg Config) (Engine, error) {
	d, err := DriverOf(cfg.Name)
	if err != nil {
		return nil, err
	}
	// Managed servers run in a directory of their own, as another user when tierbench
	// runs as root: relative paths would point elsewhere for them.
	for _, p := range []*string{&cfg.Dir, &cfg.WALDir, &cfg.TempDir} {
		if *p != "" && !filepath.IsAbs(*p) {
			abs, err := filepath.Abs(*p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", *p, err)
			}
			*p = abs
		}
	}
	return d.Open(ctx, cfg)
}
