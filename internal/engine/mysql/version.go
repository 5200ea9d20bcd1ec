package mysql

import (
	"fmt"
	"os/exec"
	"strings"

	"tierbench/internal/engine/instance"
)

// InstalledVersion is the version line of the server a managed instance would run
// (`mariadbd --version`), for a study that reuses a loaded database only on the
// version that loaded it (engine.Versioner).
func (registered) InstalledVersion() (string, error) {
	server, err := instance.Find(serverNames, binGlobs, "mariadb-server")
	if err != nil {
		return "", err
	}
	out, err := exec.Command(server, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", server, err)
	}
	return strings.Join(strings.Fields(string(out)), " "), nil
}
