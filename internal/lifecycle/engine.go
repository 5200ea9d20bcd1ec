package lifecycle

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"

	"tierbench/internal/engine"
	"tierbench/internal/placement"
	"tierbench/internal/workload"
)

// The engine's configuration (engine.Config) is written here and nowhere else: from
// the settings when the phase is configured (engineConfig, what validation checks),
// and completed when the run opens (openConfig) with what only then exists, the
// placed tiers.

// engineConfig is the engine's configuration from the engine settings, parsed when
// they were set, and what the phase asks (req): no file is placed yet.
func (s *Settings) engineConfig(req workload.Request) (*engine.Config, error) {
	cfg := &engine.Config{Name: s.EngineName(), DSN: s.dsn, Dir: s.db, Keep: s.keepDB || s.opts.KeepDatabase,
		MustExist: req.MustExist, Sessions: req.Sessions, BufferBytes: s.buffer, ClientIO: s.clientIO}
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join(s.out, "db")
	}
	if len(s.settings) > 0 {
		if s.dsn != "" {
			return nil, fmt.Errorf("--set changes server settings, which tierbench never does on an external server (--dsn): set them on your server instead")
		}
		cfg.Settings = map[string]string{}
		for _, kv := range s.settings {
			name, value, ok := strings.Cut(kv, "=")
			if !ok || strings.TrimSpace(name) == "" {
				return nil, fmt.Errorf("--set %q: give name=value, e.g. --set work_mem=64MB", kv)
			}
			cfg.Settings[strings.TrimSpace(name)] = strings.TrimSpace(value)
		}
	}
	drv, err := engine.DriverOf(cfg.Name)
	if err != nil {
		return nil, fmt.Errorf("--engine %q: unknown engine: valid engines are %s", s.engine, strings.Join(engine.Names(), ", "))
	}
	// A setting the engine would refuse or ignore fails here, where study validation
	// sees it, not when the cell opens its engine (docs/engines.md, "Settings: --set").
	if c, ok := drv.(engine.SettingsChecker); ok && len(cfg.Settings) > 0 {
		if err := c.CheckSettings(cfg.Settings); err != nil {
			var se *engine.SettingError
			if errors.As(err, &se) {
				return nil, fmt.Errorf("--set %s=%s on %s: %s", se.Name, se.Value, se.Engine, se.Why)
			}
			return nil, fmt.Errorf("--set: %w", err)
		}
	}
	if c, ok := drv.(engine.BufferChecker); ok && cfg.BufferBytes > 0 && cfg.DSN == "" {
		if err := c.CheckBuffer(cfg.BufferBytes, cfg.Settings); err != nil {
			return nil, fmt.Errorf("--buffer: %w", err)
		}
	}
	return cfg, nil
}

// openConfig is the configuration the engine opens with: the phase's (cfg.Engine)
// with its files on the placed tiers (their directories, the shim's environment, the
// settings placement adds where the user set none) and the directories a managed
// server running as its own user may pass through: those the user gave tierbench
// (and those inside them), never their parents.
func openConfig(cfg *Config, placed *placement.Placed) (engine.Config, error) {
	ecfg := *cfg.Engine
	files, err := placed.EngineFiles(ecfg)
	if err != nil {
		return ecfg, err
	}
	if files.Dir != "" {
		ecfg.Dir = files.Dir
	}
	if files.WALDir != "" {
		ecfg.WALDir = files.WALDir
	}
	if files.TempDir != "" {
		ecfg.TempDir = files.TempDir
	}
	ecfg.Env = append(ecfg.Env[:len(ecfg.Env):len(ecfg.Env)], files.Env...)
	if len(files.Settings) > 0 {
		ecfg.Settings = maps.Clone(ecfg.Settings) // the phase's stay as they were
		if ecfg.Settings == nil {
			ecfg.Settings = map[string]string{}
		}
		for _, st := range files.Settings {
			ecfg.Settings[st.Name] = st.Value
		}
	}
	ecfg.Traversable = append([]string{cfg.Out}, ecfg.Traversable...)
	if d := cfg.Engine.Dir; d != "" { // --db, or OUT/db
		ecfg.Traversable = append(ecfg.Traversable, d)
	}
	for _, t := range cfg.Plan.Tiers {
		ecfg.Traversable = append(ecfg.Traversable, t.Dir)
	}
	return ecfg, nil
}
