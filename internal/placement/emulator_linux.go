//go:build linux && cgo

package placement

import "tierbench/internal/emulator/sqlitevfs"

func attachSQLite(ring string) (func(), error) { return sqlitevfs.Attach(ring) }
