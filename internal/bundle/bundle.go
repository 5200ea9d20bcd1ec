// Package bundle holds what the bundled YAML files of tierbench (the mixes of package
// oltp, the studies of package study) share: listing them, reading one, and telling a
// bundled name from the path of a user's file.
package bundle

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Set is the YAML files of one directory of an embedded file system.
type Set struct {
	FS  fs.FS
	Dir string
}

// Names lists the files' names without the .yaml suffix, sorted.
func (s Set) Names() []string {
	entries, _ := fs.ReadDir(s.FS, s.Dir)
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// Path is where the file of a bundled name is in the set's file system.
func (s Set) Path(name string) string { return path.Join(s.Dir, name+".yaml") }

// Source is the file of a bundled name; the error is the file system's.
func (s Set) Source(name string) ([]byte, error) { return fs.ReadFile(s.FS, s.Path(name)) }

// IsPath says whether what a user gave names a file rather than a bundled entry: it
// has a path separator or a .yaml/.yml suffix. Anything else is a bundled name first.
func IsPath(nameOrPath string) bool {
	return strings.ContainsRune(nameOrPath, filepath.Separator) || strings.ContainsRune(nameOrPath, '/') ||
		strings.HasSuffix(nameOrPath, ".yaml") || strings.HasSuffix(nameOrPath, ".yml")
}

// Read reads what a user named: the bundled entry of that name when it is not a path
// (IsPath) and the set has one, else the file of that name; fromSet says which. The
// error is the file system's (fs.ErrNotExist for neither).
func (s Set) Read(nameOrPath string) (data []byte, fromSet bool, err error) {
	if !IsPath(nameOrPath) {
		if data, err := s.Source(nameOrPath); err == nil {
			return data, true, nil
		}
	}
	data, err = os.ReadFile(nameOrPath)
	return data, false, err
}
