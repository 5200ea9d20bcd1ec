package oltp

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"tierbench/internal/bundle"
)

//go:embed mixes/*.yaml
var bundledFS embed.FS

var bundled = bundle.Set{FS: bundledFS, Dir: "mixes"}

// Bundled lists the names of the mixes built into tierbench.
func Bundled() []string { return bundled.Names() }

// WriteBundled lists the bundled mixes, each with the first sentence of its
// description and its transactions' weights, and how to copy one.
func WriteBundled(w io.Writer) error {
	width := 0 // the names' column, as wide as the longest
	for _, name := range Bundled() {
		width = max(width, len(name))
	}
	for _, name := range Bundled() {
		m, err := Open(name)
		if err != nil {
			return err
		}
		var txns []string
		for _, t := range m.Transactions {
			txns = append(txns, fmt.Sprintf("%s %g", t.Name, t.Weight))
		}
		desc := strings.Join(strings.Fields(m.Description), " ")
		if i := strings.Index(desc, ". "); i > 0 {
			desc = desc[:i+1]
		}
		fmt.Fprintf(w, "%-*s %s\n%-*s weights: %s\n", width, name, desc, width, "", strings.Join(txns, ", "))
	}
	_, err := fmt.Fprintln(w, "\n'tierbench oltp show NAME > my.yaml' prints one to copy and edit; run it with --mix my.yaml")
	return err
}

// BundledSource is the YAML of a bundled mix, for users to copy and edit.
func BundledSource(name string) ([]byte, error) {
	data, err := bundled.Source(name)
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
	data, fromSet, err := bundled.Read(nameOrPath)
	switch {
	case fromSet:
		return Parse("bundled:"+nameOrPath, data)
	case errors.Is(err, os.ErrNotExist) && !bundle.IsPath(nameOrPath):
		return nil, fmt.Errorf("no mix %q: name a bundled mix (%s) or a mix file", nameOrPath, strings.Join(Bundled(), ", "))
	case err != nil:
		return nil, fmt.Errorf("mix file: %w", err)
	}
	return Parse(nameOrPath, data)
}
