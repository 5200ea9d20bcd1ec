package postgres

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"tierbench/internal/engine/instance"
)

// InstalledVersion is the version line of the server a managed cluster would run
// (`postgres --version` beside initdb), for a study that reuses a loaded database
// only on the version that loaded it (engine.Versioner).
func (registered) InstalledVersion() (string, error) {
	initdb, err := instance.Find([]string{"initdb"}, binGlobs, "postgresql")
	if err != nil {
		return "", err
	}
	out, err := exec.Command(filepath.Join(filepath.Dir(initdb), "postgres"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("postgres --version: %w", err)
	}
	return strings.Join(strings.Fields(string(out)), " "), nil
}
