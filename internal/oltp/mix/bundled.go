package mix

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

//go:embed mixes/*.yaml
var bundledFS embed.FS

// Bundled lists the names of the mixes built into tierbench.
func Bundled() []string {
	entries, _ := fs.ReadDir(bundledFS, "mixes")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// BundledSource is the YAML of a bundled mix, for users to copy and edit.
func BundledSource(name string) ([]byte, error) {
	data, err := bundledFS.ReadFile("mixes/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no bundled mix %q: the bundled mixes are %s", name, strings.Join(Bundled(), ", "))
	}
	return data, nil
}

// Open reads a mix by bundled name (point-select) or by path (./my.yaml). A name with
// a path separator or a .yaml/.yml suffix is a path; otherwise a bundled name wins
// over a file of that name in the working directory.
func Open(nameOrPath string) (*Mix, error) {
	if nameOrPath == "" {
		return nil, fmt.Errorf("no mix given: name a bundled mix (%s) or a mix file", strings.Join(Bundled(), ", "))
	}
	isPath := strings.ContainsRune(nameOrPath, filepath.Separator) || strings.ContainsRune(nameOrPath, '/') ||
		strings.HasSuffix(nameOrPath, ".yaml") || strings.HasSuffix(nameOrPath, ".yml")
	if !isPath {
		if data, err := BundledSource(nameOrPath); err == nil {
			return Parse("bundled:"+nameOrPath, data)
		}
	}
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !isPath {
			return nil, fmt.Errorf("no mix %q: name a bundled mix (%s) or a mix file", nameOrPath, strings.Join(Bundled(), ", "))
		}
		return nil, fmt.Errorf("mix file: %w", err)
	}
	return Parse(nameOrPath, data)
}
