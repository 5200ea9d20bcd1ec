package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"tierbench/internal/engine"
	"tierbench/internal/engine/instance"
)

// PostgreSQL checks a managed instance's settings itself: the server refuses to start
// on a parameter it does not know or a value it cannot take. tierbench asks it twice:
// before anything starts, `postgres -C NAME -D DIR -c NAME=VALUE ...` parses the
// settings as a start would and prints one back without starting a server (DIR holds
// only an empty postgresql.conf; -C first is what PostgreSQL lets run as root); once
// the server runs, pg_settings says whether each came from the command line. A custom
// parameter (one with a dot) that no loaded library defines is kept and never used:
// it is recorded unverified.

// checkSettings is CheckSettings: the installed server's verdict on settings, nil when
// the server is not installed (opening it says what to install) or cannot be asked.
func checkSettings(settings map[string]string) error {
	return instance.CheckSettings(settings, func() (string, error) {
		initdb, err := instance.Find([]string{"initdb"}, binGlobs, "postgresql")
		return filepath.Join(filepath.Dir(initdb), "postgres"), err
	}, func(server string) error { return parseSettings(server, settings) })
}

var (
	fatalLine = regexp.MustCompile(`(?m)(?:FATAL|ERROR):\s+(.*)$`)
	hintLine  = regexp.MustCompile(`(?m)HINT:\s+(.*)$`)
	paramName = regexp.MustCompile(`parameter "([^"]+)"`)
)

// parseSettings runs server -C on settings in an empty configuration directory.
func parseSettings(server string, settings map[string]string) error {
	dir, err := os.MkdirTemp("", "tierbench-pgcheck-")
	if err != nil {
		return nil
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "postgresql.conf"), nil, 0o644); err != nil {
		return nil
	}
	names := engine.SortedSettings(settings)
	args := []string{"-C", names[0], "-D", dir}
	for _, k := range names {
		args = append(args, "-c", k+"="+settings[k])
	}
	cmd := exec.Command(server, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	var exit *exec.ExitError
	m := fatalLine.FindSubmatch(out)
	if !errors.As(err, &exit) || m == nil {
		return nil // not a verdict on the settings (a server too old for -C as root): the start decides
	}
	why := string(m[1])
	if h := hintLine.FindSubmatch(out); h != nil {
		why += " (" + string(h[1]) + ")"
	}
	name := names[0]
	if p := paramName.FindSubmatch(m[1]); p != nil {
		for _, k := range names {
			if strings.EqualFold(k, string(p[1])) {
				name = k
			}
		}
	}
	return &engine.SettingError{Engine: "postgres", Name: name, Value: settings[name], Why: "PostgreSQL refuses it: " + why}
}

// verifySettings reads each of settings back from the running server (pg_settings):
// a setting the server took from its command line is verified; a custom one no library
// defines is unverified; any other is a *engine.SettingError.
func verifySettings(ctx context.Context, db *sql.DB, settings map[string]string) ([]engine.AppliedSetting, error) {
	var applied []engine.AppliedSetting
	for _, k := range engine.SortedSettings(settings) {
		a := engine.AppliedSetting{Name: k, Requested: settings[k]}
		var source string
		err := db.QueryRowContext(ctx, "SELECT current_setting(name), source FROM pg_settings WHERE name = lower($1)", k).Scan(&a.Value, &source)
		switch {
		case errors.Is(err, sql.ErrNoRows) && strings.Contains(k, "."):
			a.Why = "a custom parameter no loaded library defines: PostgreSQL keeps it without using it"
			if err := db.QueryRowContext(ctx, "SELECT current_setting($1, true)", k).Scan(&a.Value); err != nil {
				a.Value = ""
			}
		case errors.Is(err, sql.ErrNoRows):
			return nil, &engine.SettingError{Engine: "postgres", Name: k, Value: settings[k], Why: "the running server does not list it in pg_settings"}
		case err != nil:
			return nil, fmt.Errorf("postgres: read back setting %s: %w", k, err)
		case source != "command line":
			return nil, &engine.SettingError{Engine: "postgres", Name: k, Value: settings[k],
				Why: fmt.Sprintf("the server holds %s from its %s, not the value it was started with", a.Value, source)}
		default:
			a.Verified = true
		}
		applied = append(applied, a)
	}
	return applied, nil
}
