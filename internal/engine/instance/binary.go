package instance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Find looks for the first of names in PATH, then in the directories the globs match
// (the highest version first, comparing the numbers in the paths), and returns the
// full path. When nothing is found, the error says to install pkg.
func Find(names []string, globs []string, pkg string) (string, error) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			// Resolve symlinks so companions (postgres beside initdb) are found.
			if real, err := filepath.EvalSymlinks(p); err == nil {
				return real, nil
			}
			return p, nil
		}
	}
	var dirs []string
	for _, g := range globs {
		m, _ := filepath.Glob(g)
		dirs = append(dirs, m...)
	}
	sort.SliceStable(dirs, func(i, j int) bool { return versionLess(dirs[j], dirs[i]) })
	for _, d := range dirs {
		for _, n := range names {
			p := filepath.Join(d, n)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return p, nil
			}
		}
	}
	return "", &MissingError{Names: names, Package: pkg}
}

// MissingError says which server binary is missing and how to install it.
type MissingError struct {
	Names   []string
	Package string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("%s not found in PATH or the usual directories: install it with `apt-get install %s`, or give a DSN to use a running server",
		strings.Join(e.Names, " or "), e.Package)
}

// versionLess compares the digit runs of two paths numerically, so .../9/bin < .../15/bin.
func versionLess(a, b string) bool {
	na, nb := numbers(a), numbers(b)
	for i := 0; i < len(na) && i < len(nb); i++ {
		if na[i] != nb[i] {
			return na[i] < nb[i]
		}
	}
	if len(na) != len(nb) {
		return len(na) < len(nb)
	}
	return a < b
}

func numbers(s string) []int {
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' }) {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}
