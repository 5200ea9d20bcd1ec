package mysql

import (
	"fmt"

	"tierbench/internal/engine/instance"
)

// serverPrograms are the programs a managed instance runs on its files: the server
// and, for MariaDB, its install program (engine.Preload.Programs).
func serverPrograms() ([]string, error) {
	server, err := instance.Find(serverNames, binGlobs, "mariadb-server")
	if err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	out := []string{server}
	if installer, err := instance.Find(installerNames, binGlobs, "mariadb-server"); err == nil {
		out = append(out, installer)
	}
	return out, nil
}
