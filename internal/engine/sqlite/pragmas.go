package sqlite

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"tierbench/internal/engine"
)

// SQLite's settings are PRAGMAs, and SQLite is lenient with them: an unknown PRAGMA
// is a no-op, and a value it cannot read becomes 0 or the default (PRAGMA cache_size =
// abc sets 0). So tierbench takes only the PRAGMAs below, with their value syntax as
// sqlite.org/pragma.html gives it, refuses anything else before the database opens,
// and reads every one back on every connection it applies them to: a value SQLite did
// not keep (page_size on a database in WAL mode, threads above its build's limit) is an
// error naming what SQLite holds.

// pragmaKind is how a PRAGMA's value is written.
type pragmaKind int

const (
	// pragmaInt: a signed integer.
	pragmaInt pragmaKind = iota
	// pragmaBool: 0, 1, on, off, true, false, yes, no; SQLite reports 0 or 1.
	pragmaBool
	// pragmaEnum: one of names (or its number), as SQLite reports it.
	pragmaEnum
)

// pragma is one setting PRAGMA: its value syntax and how SQLite reports it.
type pragma struct {
	kind pragmaKind
	// names maps each accepted spelling of an enum's value, lower case, to the form
	// SQLite reports it in.
	names map[string]string
	// check refuses an integer outside what SQLite takes ("" when valid).
	check func(int64) string
	// reported turns what SQLite reports into the form a requested value is compared
	// in (nil: as it is).
	reported func(string) string
	// writeOnly: SQLite reports nothing when it is read; it is recorded unverified.
	writeOnly bool
	// beforeJournal: the PRAGMA shapes the database file, so it is applied before
	// journal_mode, which writes the file's header.
	beforeJournal bool
}

func atLeast(min int64) func(int64) string {
	return func(v int64) string {
		if v < min {
			return fmt.Sprintf("give %d or more", min)
		}
		return ""
	}
}

func enum(pairs ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	return m
}

// pragmas are the setting PRAGMAs tierbench applies, from sqlite.org/pragma.html
// (those that change how SQLite works, not those that query or act once).
var pragmas = map[string]pragma{
	"analysis_limit": {kind: pragmaInt, check: atLeast(0)},
	"application_id": {kind: pragmaInt},
	"auto_vacuum": {kind: pragmaEnum, beforeJournal: true,
		names: enum("none", "0", "0", "0", "full", "1", "1", "1", "incremental", "2", "2", "2")},
	"automatic_index": {kind: pragmaBool},
	"busy_timeout":    {kind: pragmaInt, check: atLeast(0)},
	"cache_size":      {kind: pragmaInt},
	// Read, it reports the spill threshold in pages (0 when off).
	"cache_spill": {kind: pragmaBool, reported: func(v string) string {
		if v == "0" {
			return "0"
		}
		return "1"
	}},
	"case_sensitive_like":       {kind: pragmaBool, writeOnly: true},
	"cell_size_check":           {kind: pragmaBool},
	"checkpoint_fullfsync":      {kind: pragmaBool},
	"defer_foreign_keys":        {kind: pragmaBool},
	"foreign_keys":              {kind: pragmaBool},
	"fullfsync":                 {kind: pragmaBool},
	"hard_heap_limit":           {kind: pragmaInt, check: atLeast(0)},
	"ignore_check_constraints":  {kind: pragmaBool},
	"journal_size_limit":        {kind: pragmaInt, check: atLeast(-1)},
	"legacy_alter_table":        {kind: pragmaBool},
	"max_page_count":            {kind: pragmaInt, check: atLeast(1)},
	"mmap_size":                 {kind: pragmaInt, check: atLeast(0)},
	"query_only":                {kind: pragmaBool},
	"read_uncommitted":          {kind: pragmaBool},
	"recursive_triggers":        {kind: pragmaBool},
	"reverse_unordered_selects": {kind: pragmaBool},
	"soft_heap_limit":           {kind: pragmaInt, check: atLeast(0)},
	"threads":                   {kind: pragmaInt, check: atLeast(0)},
	"trusted_schema":            {kind: pragmaBool},
	"user_version":              {kind: pragmaInt},
	"wal_autocheckpoint":        {kind: pragmaInt},
	"journal_mode": {kind: pragmaEnum,
		names: enum("delete", "delete", "truncate", "truncate", "persist", "persist", "memory", "memory", "wal", "wal", "off", "off")},
	"locking_mode": {kind: pragmaEnum, names: enum("normal", "normal", "exclusive", "exclusive")},
	"page_size": {kind: pragmaInt, beforeJournal: true, check: func(v int64) string {
		if v < 512 || v > 65536 || v&(v-1) != 0 {
			return "give a power of two from 512 to 65536"
		}
		return ""
	}},
	"secure_delete": {kind: pragmaEnum,
		names: enum("0", "0", "off", "0", "false", "0", "no", "0", "1", "1", "on", "1", "true", "1", "yes", "1", "fast", "2", "2", "2")},
	"synchronous": {kind: pragmaEnum,
		names: enum("off", "0", "0", "0", "normal", "1", "1", "1", "full", "2", "2", "2", "extra", "3", "3", "3")},
	"temp_store": {kind: pragmaEnum,
		names: enum("default", "0", "0", "0", "file", "1", "1", "1", "memory", "2", "2", "2")},
}

var integer = regexp.MustCompile(`^[+-]?[0-9]+$`)

// pragmaNames lists the PRAGMAs tierbench applies, for messages.
func pragmaNames() string {
	names := make([]string, 0, len(pragmas))
	for n := range pragmas {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// expected checks value for PRAGMA name and returns it as SQLite reports it once
// applied; a name or value SQLite would ignore or misread is a *engine.SettingError.
func expected(name, value string) (string, error) {
	refuse := func(why string) error {
		return &engine.SettingError{Engine: "sqlite", Name: name, Value: value, Why: why}
	}
	p, ok := pragmas[strings.ToLower(name)]
	if !ok {
		return "", refuse("no such setting: SQLite's settings are its PRAGMAs, and tierbench applies these: " + pragmaNames())
	}
	v := strings.ToLower(strings.TrimSpace(value))
	switch p.kind {
	case pragmaInt:
		if !integer.MatchString(v) {
			return "", refuse("give an integer (SQLite would read this as 0)")
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "", refuse("give an integer within 64 bits")
		}
		if p.check != nil {
			if why := p.check(n); why != "" {
				return "", refuse(why)
			}
		}
		return strconv.FormatInt(n, 10), nil
	case pragmaBool:
		switch v {
		case "1", "on", "true", "yes":
			return "1", nil
		case "0", "off", "false", "no":
			return "0", nil
		}
		return "", refuse("give on or off (1, 0, true, false, yes, no)")
	}
	if canon, ok := p.names[v]; ok {
		return canon, nil
	}
	var valid []string
	for k := range p.names {
		if !integer.MatchString(k) {
			valid = append(valid, strings.ToUpper(k))
		}
	}
	sort.Strings(valid)
	return "", refuse("give one of " + strings.Join(valid, ", "))
}

// checkPragmas refuses the first setting of settings SQLite would ignore or misread.
func checkPragmas(settings map[string]string) error {
	for _, k := range engine.SortedSettings(settings) {
		if _, err := expected(k, settings[k]); err != nil {
			return err
		}
	}
	return nil
}

// pragmaOrder is the order PRAGMAs are applied in: those that shape the database file
// first (a page size after journal_mode=WAL would be too late), then by name.
func pragmaOrder(settings map[string]string) []string {
	names := engine.SortedSettings(settings)
	sort.SliceStable(names, func(i, j int) bool {
		return pragmas[strings.ToLower(names[i])].beforeJournal && !pragmas[strings.ToLower(names[j])].beforeJournal
	})
	return names
}

// readBack compares what SQLite reports for PRAGMA name (got) with the value applied:
// the setting as recorded, or a *engine.SettingError when SQLite did not keep it.
func readBack(name, value, got string) (engine.AppliedSetting, error) {
	a := engine.AppliedSetting{Name: name, Requested: value, Value: got}
	want, err := expected(name, value)
	if err != nil {
		return a, err
	}
	p := pragmas[strings.ToLower(name)]
	if p.writeOnly {
		a.Why = "SQLite does not report this PRAGMA's value"
		return a, nil
	}
	if p.reported != nil {
		got = p.reported(got)
	}
	if !strings.EqualFold(got, want) {
		return a, &engine.SettingError{Engine: "sqlite", Name: name, Value: value,
			Why: fmt.Sprintf("SQLite did not take it: PRAGMA %s reads %s after it was set (a value out of its range, or one the database's state does not allow, such as page_size once the file is in WAL mode)", name, a.Value)}
	}
	a.Verified = true
	return a, nil
}
