package study

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

//go:embed studies/*.yaml
var bundledFS embed.FS

// Bundled lists the names of the studies built into tierbench.
func Bundled() []string {
	entries, _ := fs.ReadDir(bundledFS, "studies")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// BundledSource is the YAML of a bundled study, for `study show` and for users to
// copy and edit.
func BundledSource(name string) ([]byte, error) {
	data, err := bundledFS.ReadFile("studies/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no bundled study %q: the bundled studies are %s", name, strings.Join(Bundled(), ", "))
	}
	return data, nil
}

// Open reads a study by bundled name (smoke) or by path (./my-study.yaml). A name
// with a path separator or a .yaml/.yml suffix is a path; otherwise a bundled name
// wins over a file of that name in the working directory.
func Open(nameOrPath string) (*File, error) {
	isPath := strings.ContainsRune(nameOrPath, filepath.Separator) || strings.ContainsRune(nameOrPath, '/') ||
		strings.HasSuffix(nameOrPath, ".yaml") || strings.HasSuffix(nameOrPath, ".yml")
	if !isPath {
		if data, err := BundledSource(nameOrPath); err == nil {
			return Parse("studies/"+nameOrPath+".yaml", data)
		}
	}
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such study file, and no bundled study of that name: the bundled studies are %s", nameOrPath, strings.Join(Bundled(), ", "))
		}
		return nil, fmt.Errorf("study file: %w", err)
	}
	return Parse(nameOrPath, data)
}
