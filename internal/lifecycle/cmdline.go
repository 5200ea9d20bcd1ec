package lifecycle

import (
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
