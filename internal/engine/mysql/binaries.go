package mysql

import (
	"fmt"

	"tierbench/internal/engine/instance"
)

// ServerBinaries are the programs a managed instance runs on its files: the server and,
// for MariaDB, its install program (placement checks that the emulator's preload shim
// can enter them).
func ServerBinaries() ([]string, error) {
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
