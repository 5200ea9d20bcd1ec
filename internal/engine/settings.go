package engine

import (
	"fmt"
	"sort"
	"strings"
)

// SettingsChecker is implemented by drivers that can check the settings a run gives an
// embedded or managed engine (Config.Settings: --set, a study's set:) before anything
// opens: SQLite against the PRAGMAs it knows and their value syntax, PostgreSQL and
// MariaDB by asking the installed server program to parse them without starting a
// server. A run's configuration calls it, so that study validation refuses a setting
// the engine would refuse or ignore (docs/engines.md, "Settings: --set").
type SettingsChecker interface {
	// CheckSettings returns a *SettingError for the first setting the engine would
	// refuse or ignore, nil when each is one it takes. It may run the engine's
	// programs (never a server); when they are not installed it checks nothing, since
	// opening the engine then fails with what to install.
	CheckSettings(settings map[string]string) error
}

// SettingError is an engine's refusal of a setting (Config.Settings): before it opened
// (SettingsChecker), or after it applied it and read it back (Open), when the engine
// did not take the value it was given.
type SettingError struct {
	Engine, Name, Value string
	// Why says what the engine did with it and what would be valid, in words.
	Why string
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("%s setting %s=%s: %s", e.Engine, e.Name, e.Value, e.Why)
}

// AppliedSetting is one setting of Config.Settings as the engine holds it once open,
// read back from the engine after it was applied; it is recorded in result.json
// (Info.Applied).
type AppliedSetting struct {
	Name string `json:"name"`
	// Requested is the value the run gave; Value is the value the engine reports
	// holding (empty when it cannot say).
	Requested string `json:"requested"`
	Value     string `json:"value,omitempty"`
	// Verified says the engine reported holding the requested value (in its own
	// spelling: SQLite's FULL is 2, PostgreSQL's 64MB is 8192 pages). A setting the
	// engine refused or ignored is an error, never recorded; one the engine cannot
	// report is recorded unverified, with why.
	Verified bool   `json:"verified"`
	Why      string `json:"why,omitempty"`
}

// Unverified names the settings of applied that the engine could not confirm, for a
// note: "name=value (why)", sorted; empty when every one was verified.
func Unverified(applied []AppliedSetting) []string {
	var out []string
	for _, a := range applied {
		if !a.Verified {
			out = append(out, a.Name+"="+a.Requested+" ("+a.Why+")")
		}
	}
	sort.Strings(out)
	return out
}

// SortedSettings are the names of settings, sorted: engines apply and report them in
// this order, so that runs with the same settings start their servers alike.
func SortedSettings(settings map[string]string) []string {
	names := make([]string, 0, len(settings))
	for k := range settings {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// SettingKey is a setting's name as engines that take - and _ alike compare it
// (MariaDB's innodb-buffer-pool-size is innodb_buffer_pool_size), lower case.
func SettingKey(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "-", "_")
}

// BufferChecker is implemented by drivers whose engine refuses a buffer (Config.
// BufferBytes, --buffer) below a size, so that a run's configuration, and with it a
// study's validation, refuses it before a server starts and fails.
type BufferChecker interface {
	// CheckBuffer returns a *BufferError when the engine would refuse a buffer of
	// bytes with settings (Config.Settings, which may change what it needs).
	CheckBuffer(bytes int64, settings map[string]string) error
}

// BufferError is a buffer below the least its engine takes.
type BufferError struct {
	Engine   string
	Bytes    int64
	MinBytes int64
	// Why says whose rule it is.
	Why string
}

func (e *BufferError) Error() string {
	return fmt.Sprintf("%s needs a buffer of at least %d MiB, got %.4g MiB: %s", e.Engine, e.MinBytes>>20, float64(e.Bytes)/(1<<20), e.Why)
}
