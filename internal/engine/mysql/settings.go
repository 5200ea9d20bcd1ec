package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"

	"tierbench/internal/engine"
	"tierbench/internal/engine/instance"
)

// MariaDB starts on settings it cannot take: an invalid boolean is "ignoring option
// ... due to invalid value" and the default stays, a number out of range is "adjusted
// to" the nearest it takes, a bad InnoDB value disables InnoDB. It says so in its log
// as an [ERROR] or a [Warning] naming the option. tierbench asks it twice: before
// anything starts, `mariadbd --no-defaults --verbose --help --NAME=VALUE ...` parses
// the settings as a start would and exits; once the server runs, its error log is read
// for the same lines, and each setting is read back from GLOBAL_VARIABLES. A number or
// boolean the server holds otherwise than given is an error; a text it spells another
// way, or an option that is no variable, is recorded unverified.

// checkSettings is CheckSettings: the installed server's verdict on settings, nil when
// it is not installed (opening it says what to install).
func checkSettings(settings map[string]string) error {
	find := func() (string, error) { return instance.Find(serverNames, binGlobs, "mariadb-server") }
	return instance.CheckSettings(settings, find, func(server string) error {
		args := []string{"--no-defaults", "--verbose", "--help"}
		for _, k := range engine.SortedSettings(settings) {
			args = append(args, "--"+k+"="+settings[k])
		}
		cmd := exec.Command(server, args...)
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		_ = cmd.Run() // the verdict is in what it logged; a failure it does not tie to a setting is the start's to report
		return refusal(stderr.String(), settings)
	})
}

var (
	logTag = regexp.MustCompile(`\[(ERROR|Warning)\]\s+(.*)$`)
	quoted = regexp.MustCompile(`'([^']*)'`)
)

// refusal finds, in a server's log, the first [ERROR] or [Warning] that names one of
// settings (as 'name', '--name' or 'name=value', with - or _), as a *engine.SettingError.
func refusal(log string, settings map[string]string) error {
	keys := map[string]string{}
	for k := range settings {
		keys[engine.SettingKey(k)] = k
	}
	for _, line := range strings.Split(log, "\n") {
		m := logTag.FindStringSubmatch(line)
		// A deprecated option still takes effect: the warning says so, not that the
		// server refused it.
		if m == nil || strings.Contains(strings.ToLower(m[2]), "deprecated") {
			continue
		}
		for _, q := range quoted.FindAllStringSubmatch(m[2], -1) {
			name, _, _ := strings.Cut(strings.TrimPrefix(q[1], "--"), "=")
			name = strings.TrimPrefix(engine.SettingKey(name), "loose_")
			if k, ok := keys[name]; ok {
				return &engine.SettingError{Engine: "mysql", Name: k, Value: settings[k], Why: "the server does not take it: " + m[2]}
			}
		}
	}
	return nil
}

// verifySettings checks a started server's settings: its log (logPath) must not say
// it refused or changed one, and each is read back (GLOBAL_VARIABLES).
func verifySettings(ctx context.Context, db *sql.DB, logPath string, settings map[string]string) ([]engine.AppliedSetting, error) {
	if len(settings) == 0 {
		return nil, nil
	}
	if log, err := os.ReadFile(logPath); err == nil {
		if err := refusal(string(log), settings); err != nil {
			return nil, err
		}
	}
	var applied []engine.AppliedSetting
	for _, k := range engine.SortedSettings(settings) {
		a := engine.AppliedSetting{Name: k, Requested: settings[k]}
		err := db.QueryRowContext(ctx, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_VARIABLES WHERE LOWER(VARIABLE_NAME) = ?",
			engine.SettingKey(k)).Scan(&a.Value)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			a.Why = "an option, not a variable: the server does not report it"
		case err != nil:
			return nil, fmt.Errorf("mysql: read back setting %s: %w", k, err)
		default:
			same, comparable := sameValue(a.Requested, a.Value)
			switch {
			case same:
				a.Verified = true
			case comparable:
				return nil, &engine.SettingError{Engine: "mysql", Name: k, Value: a.Requested,
					Why: fmt.Sprintf("the server holds %s instead (it adjusts a value outside its range or step): give %s, or a value it takes", a.Value, a.Value)}
			default:
				a.Why = "the server reports " + a.Value + ", which tierbench cannot compare with the value given"
			}
		}
		applied = append(applied, a)
	}
	return applied, nil
}

// sameValue compares a value given to the server with the one it reports: as numbers
// (with MariaDB's K, M, G, T, P, E suffixes) or booleans when both read as such, else
// as text, case aside. comparable says both were numbers or booleans.
func sameValue(given, held string) (same, comparable bool) {
	if a, ok := number(given); ok {
		if b, ok := number(held); ok {
			return a == b, true
		}
	}
	if a, ok := boolean(given); ok {
		if b, ok := boolean(held); ok {
			return a == b, true
		}
	}
	return strings.EqualFold(strings.TrimSpace(given), strings.TrimSpace(held)), false
}

func number(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	mult := 1.0
	if n := len(s); n > 1 {
		if i := strings.IndexByte("KMGTPE", s[n-1]&^0x20); i >= 0 {
			mult, s = float64(int64(1)<<(10*(i+1))), s[:n-1]
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	return v * mult, err == nil
}

func boolean(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "on", "true", "yes":
		return true, true
	case "0", "off", "false", "no":
		return false, true
	}
	return false, false
}
