package lifecycle

import (
	"fmt"
	"os"
	"strings"

	"tierbench/internal/engine"
)

// CommandLine is args as a shell would take them back, DSNs' passwords removed: what
// the --out lock records.
func CommandLine(args []string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		if i > 0 && args[i-1] == "--dsn" {
			a = engine.RedactDSN(a)
		} else if v, ok := strings.CutPrefix(a, "--dsn="); ok {
			a = "--dsn=" + engine.RedactDSN(v)
		}
		if a == "" || strings.ContainsAny(a, " \t\n'\"$`\\()*?;&|<>") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

// EnsureWritableDir creates dir if needed and proves it is writable before any work
// starts; its errors name flag.
func EnsureWritableDir(flag, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s %s: cannot create the directory (%v): choose a directory you can write to", flag, dir, unwrapPathError(err))
	}
	probe, err := os.CreateTemp(dir, ".tierbench-probe-*")
	if err != nil {
		return fmt.Errorf("%s %s: directory is not writable (%v): choose a directory you can write to", flag, dir, unwrapPathError(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
