package metrics

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// WriteJSONFile writes v as indented JSON to path atomically (WriteFile). A number
// JSON cannot hold (NaN, an infinity) is written as null and named in a
// *NonFiniteError, returned once the file is written: one bad figure must not lose
// the whole result.
func WriteJSONFile(path string, v any) error {
	data, replaced, err := marshalFinite(v, true)
	if err != nil {
		return fmt.Errorf("write %s: encode the result: %w", path, err)
	}
	if err := WriteFile(path, append(data, '\n')); err != nil {
		return err
	}
	if len(replaced) > 0 {
		return &NonFiniteError{File: path, Fields: replaced}
	}
	return nil
}

// WriteFile writes data to path atomically: a temporary file in the same directory,
// fsync, rename, then fsync of the directory, so a reader sees either the old file or
// the whole new one, also after a crash. An error names the file, the cause and what
// the user can do about it.
func WriteFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return writeError(path, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return writeError(path, err)
	}
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp makes it private; results are for reading
		return writeError(path, err)
	}
	if err := tmp.Sync(); err != nil {
		return writeError(path, err)
	}
	if err := tmp.Close(); err != nil {
		return writeError(path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return writeError(path, err)
	}
	done = true
	// The rename is durable only once the directory itself is on disk. Windows cannot
	// sync a directory, and there a rename is already durable enough.
	if runtime.GOOS != "windows" {
		d, err := os.Open(dir)
		if err != nil {
			return writeError(path, err)
		}
		defer d.Close()
		if err := d.Sync(); err != nil {
			return writeError(path, fmt.Errorf("sync directory: %w", err))
		}
	}
	return nil
}

// writeError names the file, the cause and what the user can do about it. The
// temporary file's name is left out: it differs each time and means nothing to users.
func writeError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.HasPrefix(filepath.Base(pe.Path), "."+filepath.Base(path)+".") {
		err = pe.Err
	}
	hint := "check that the directory exists, is writable and has free space, then run again"
	switch {
	case errors.Is(err, syscall.ENOSPC):
		hint = "the disk is full: free some space and run again"
	case errors.Is(err, syscall.EROFS):
		hint = "the file system is read-only: choose another --out"
	case errors.Is(err, syscall.ENOTDIR):
		hint = "a path component is not a directory: choose another --out"
	case errors.Is(err, fs.ErrNotExist):
		hint = "the directory does not exist: create it or choose another --out"
	case errors.Is(err, fs.ErrPermission):
		hint = "the directory is not writable: fix its permissions or choose another --out"
	}
	return fmt.Errorf("write %s: %w (%s)", path, err, hint)
}

// ReadJSONFile decodes the JSON file at path, as WriteJSONFile wrote it, into a new T.
// A missing file is (nil, nil); a file that does not decode is an error naming it.
func ReadJSONFile[T any](path string) (*T, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v := new(T)
	if err := json.Unmarshal(data, v); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
