package postgres

import (
	"fmt"
	"path/filepath"

	"tierbench/internal/engine/instance"
)

// ServerBinaries are the programs a managed instance runs on its files: initdb and the
// server beside it (placement checks that the emulator's preload shim can enter them).
func ServerBinaries() ([]string, error) {
	initdb, err := instance.Find([]string{"initdb"}, binGlobs, "postgresql")
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return []string{initdb, filepath.Join(filepath.Dir(initdb), "postgres")}, nil
}
