package sqlite

import sqlite3 "github.com/mattn/go-sqlite3"

// InstalledVersion is the version of the SQLite library linked into tierbench, for
// a study that reuses a loaded database only on the version that loaded it
// (engine.Versioner).
func (registered) InstalledVersion() (string, error) {
	version, _, _ := sqlite3.Version()
	return version, nil
}
