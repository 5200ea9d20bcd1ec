package study

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"tierbench/internal/rundir"
)

// workDir is where the run of ref runs: its directory in OUT (dir), or with
// --scratch the same path under SCRATCH/NAME-FINGERPRINT, so that the run's
// database, its emulated tiers' backing files and its own I/O stay on this
// machine's disk while OUT is on storage the machines share (docs/cluster.md).
// The study's name and fingerprint keep two studies on one machine apart.
func (r *Runner) workDir(ref RunRef, dir string) string {
	if r.Scratch == "" {
		return dir
	}
	return RunDir(filepath.Join(r.Scratch, r.Plan.Study.File.Name+"-"+short(r.Plan.Fingerprint)), ref.Cell.ID, ref.Rep)
}

// bringBack moves what a run left in work (under --scratch) into its directory in
// OUT, dir, whose own files are set aside, once no command of it holds work: a
// rename where the two are on one file system, else a copy. The database (db,
// tiers) stays behind and is removed with work. Nothing to do without --scratch,
// or when work does not exist.
func (r *Runner) bringBack(ctx context.Context, work, dir string) error {
	if work == dir {
		return nil
	}
	entries, err := os.ReadDir(work)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--scratch: %w", err)
	}
	if err := waitUnlocked(ctx, work, r.Lock, r.killAfter()+10*time.Second); err != nil {
		return fmt.Errorf("--scratch: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		n := e.Name()
		if n == rundir.LockFile || n == rundir.EarlierDir || slices.Contains(databaseDirs, n) {
			continue
		}
		if err := move(filepath.Join(work, n), filepath.Join(dir, n)); err != nil {
			return fmt.Errorf("--scratch: move the run's files into %s: %w", dir, err)
		}
	}
	if err := os.RemoveAll(work); err != nil {
		return fmt.Errorf("--scratch: %w", err)
	}
	// The cell's and the study's directories under SCRATCH go when they are empty.
	for d := filepath.Dir(work); d != r.Scratch && d != filepath.Dir(d); d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			break
		}
	}
	return nil
}

// move renames src to dst, or copies it (a tree) and removes it when they are on
// different file systems.
func move(src, dst string) error {
	err := os.Rename(src, dst)
	if !errors.Is(err, syscall.EXDEV) {
		return err
	}
	err = walkTree(src, dst, func(path, to string, info fs.FileInfo) error {
		switch mode := info.Mode(); {
		case mode.IsDir():
			return os.MkdirAll(to, mode.Perm())
		case mode&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case mode.IsRegular():
			if _, err := copyFile(path, to, mode.Perm(), true); err != nil {
				return err
			}
			return os.Chtimes(to, info.ModTime(), info.ModTime())
		}
		return nil // sockets, fifos: nothing a report reads
	})
	if err != nil {
		return err
	}
	return os.RemoveAll(src)
}
