//go:build !linux || !cgo

package placement

import "errors"

func attachSQLite(ring string) (func(), error) {
	return nil, errors.New("the preload path for SQLite needs Linux and cgo")
}
