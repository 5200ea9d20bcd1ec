package study

import (
	"embed"
	"errors"
	"fmt"
	"os"
	"strings"

	"tierbench/internal/bundle"
)

//go:embed studies/*.yaml
var bundledFS embed.FS

var bundled = bundle.Set{FS: bundledFS, Dir: "studies"}

// Bundled lists the names of the studies built into tierbench.
func Bundled() []string { return bundled.Names() }

// BundledSource is the YAML of a bundled study, for `study show` and for users to
// copy and edit.
func BundledSource(name string) ([]byte, error) {
	data, err := bundled.Source(name)
	if err != nil {
		return nil, fmt.Errorf("no bundled study %q: the bundled studies are %s", name, strings.Join(Bundled(), ", "))
	}
	return data, nil
}

// Open reads a study by bundled name (smoke) or by path (./my-study.yaml). A name
// with a path separator or a .yaml/.yml suffix is a path; otherwise a bundled name
// wins over a file of that name in the working directory.
func Open(nameOrPath string) (*File, error) {
	data, fromSet, err := bundled.Read(nameOrPath)
	switch {
	case fromSet:
		return Parse(bundled.Path(nameOrPath), data)
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%s: no such study file, and no bundled study of that name: the bundled studies are %s", nameOrPath, strings.Join(Bundled(), ", "))
	case err != nil:
		return nil, fmt.Errorf("study file: %w", err)
	}
	return Parse(nameOrPath, data)
}
