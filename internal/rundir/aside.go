package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// EarlierDir is the directory under a run directory that holds earlier runs' files,
// one numbered directory per run set aside: OUT/earlier/1, OUT/earlier/2, ...
const EarlierDir = "earlier"

// Aside is an earlier run's files moved out of a new run's way.
type Aside struct {
	// Dir is the run directory; To the directory the files went to.
	Dir, To string
	// Files are the names moved, as they were in Dir.
	Files []string
}

// SetAside moves those of names that exist in dir into a new dir/earlier/N (N one
// more than the highest there) before a new run writes files of the same names. The
// moves are renames within one file system: they need no space and never leave a file
// half copied. It returns nil when none of names exists. On error nothing has moved.
// Hold the directory's Lock.
func SetAside(dir string, names ...string) (*Aside, error) {
	var present []string
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			present = append(present, n)
		}
	}
	if len(present) == 0 {
		return nil, nil
	}
	earlier := filepath.Join(dir, EarlierDir)
	if err := os.MkdirAll(earlier, 0o755); err != nil {
		return nil, fmt.Errorf("set the earlier run's files aside: %w", err)
	}
	to, err := nextNumbered(earlier)
	if err != nil {
		return nil, fmt.Errorf("set the earlier run's files aside: %w", err)
	}
	a := &Aside{Dir: dir, To: to}
	for _, n := range present {
		if err := os.Rename(filepath.Join(dir, n), filepath.Join(to, n)); err != nil {
			rerr := a.Restore()
			return nil, errors.Join(fmt.Errorf("set %s aside: %w", filepath.Join(dir, n), err), rerr)
		}
		a.Files = append(a.Files, n)
	}
	return a, nil
}

// nextNumbered creates and returns parent/N for the lowest N above every number there.
func nextNumbered(parent string) (string, error) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return "", err
	}
	n := 0
	for _, e := range entries {
		if v, err := strconv.Atoi(e.Name()); err == nil && v > n {
			n = v
		}
	}
	// Bounded: a number taken between ReadDir and Mkdir (no Lock held) moves on.
	for range 1000 {
		n++
		dir := filepath.Join(parent, strconv.Itoa(n))
		if err := os.Mkdir(dir, 0o755); err == nil {
			return dir, nil
		} else if !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s: no free number", parent)
}

// Restore moves the files back into Dir when the new run wrote none of them (a run
// that failed before writing anything) and removes To (and Dir/earlier) when that
// leaves them empty. A run that wrote one of them keeps them all aside: an earlier
// run's file is never put beside a newer one's. Safe on nil.
func (a *Aside) Restore() error {
	if a == nil {
		return nil
	}
	for _, n := range a.Files {
		if _, err := os.Lstat(filepath.Join(a.Dir, n)); err == nil {
			return nil
		}
	}
	var kept []string
	var errs []error
	for _, n := range a.Files {
		dst := filepath.Join(a.Dir, n)
		if err := os.Rename(filepath.Join(a.To, n), dst); err != nil {
			kept = append(kept, n)
			errs = append(errs, fmt.Errorf("restore %s: %w", dst, err))
		}
	}
	a.Files = kept
	if len(kept) == 0 && os.Remove(a.To) == nil {
		os.Remove(filepath.Dir(a.To)) // only when empty
	}
	return errors.Join(errs...)
}

// Kept says whether files are still set aside.
func (a *Aside) Kept() bool { return a != nil && len(a.Files) > 0 }

// String says what went where: "result.json and intervals.jsonl are in OUT/earlier/2".
func (a *Aside) String() string {
	if !a.Kept() {
		return ""
	}
	files := a.Files[0]
	if n := len(a.Files); n > 1 {
		files = strings.Join(a.Files[:n-1], ", ") + " and " + a.Files[n-1]
	}
	verb := "is"
	if len(a.Files) > 1 {
		verb = "are"
	}
	return fmt.Sprintf("the earlier run's %s %s in %s", files, verb, a.To)
}
