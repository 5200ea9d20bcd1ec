package postgres

import (
	"fmt"
	"path/filepath"

	"tierbench/internal/engine/instance"
)

// serverPrograms are the programs a managed instance runs on its files: initdb and the
// server beside it (engine.Preload.Programs).
func serverPrograms() ([]string, error) {
	initdb, err := instance.Find([]string{"initdb"}, binGlobs, "postgresql")
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return []string{initdb, filepath.Join(filepath.Dir(initdb), "postgres")}, nil
}
