package dbgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// WriteFiles writes the given tables into dir as dbgen names them:
// <table>.tbl, or <table>.tbl.<Step> when opt.Chunks > 1 (nation and region
// are never chunked). It also writes the refresh sets upd selects as
// orders.tbl.uK, lineitem.tbl.uK and delete.K. Every file is written under
// a temporary name and renamed when complete, so a crash or error never
// leaves a partial file under a final name.
func WriteFiles(ctx context.Context, dir string, tables []string, opt Options, upd UpdateSets) error {
	if st, err := os.Stat(dir); err != nil {
		return fmt.Errorf("dbgen: output directory %s: %w (create it first)", dir, err)
	} else if !st.IsDir() {
		return fmt.Errorf("dbgen: output path %s is not a directory", dir)
	}
	if err := upd.check(opt.SF); err != nil {
		return err
	}
	var files []*outFile
	defer func() {
		for _, f := range files {
			f.abort()
		}
	}()
	outs := map[string]io.Writer{}
	for _, t := range tables {
		if !isTable(t) {
			return fmt.Errorf("dbgen: unknown table %q", t)
		}
		if _, dup := outs[t]; dup {
			continue
		}
		name := t + ".tbl"
		if opt.Chunks > 1 && t != "nation" && t != "region" {
			name += "." + strconv.Itoa(opt.Step)
		}
		f, err := createOut(dir, name)
		if err != nil {
			return err
		}
		files = append(files, f)
		outs[t] = f
	}
	if len(outs) > 0 {
		if err := Generate(ctx, opt, outs); err != nil {
			return explain(err, dir)
		}
	}
	for k := upd.From; k >= 1 && k <= upd.To; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		var set [3]*outFile
		for i, name := range []string{"orders.tbl.u" + strconv.Itoa(k), "lineitem.tbl.u" + strconv.Itoa(k), "delete." + strconv.Itoa(k)} {
			f, err := createOut(dir, name)
			if err != nil {
				return err
			}
			files = append(files, f)
			set[i] = f
		}
		if err := generateUpdate(ctx, opt.SF, k, upd.From, set[0], set[1], set[2]); err != nil {
			return explain(err, dir)
		}
	}
	for _, f := range files {
		if err := f.commit(); err != nil {
			return explain(err, dir)
		}
	}
	files = nil
	return nil
}

// outFile is a file written under a temporary name until commit.
type outFile struct {
	*os.File
	final string
	done  bool
}

func createOut(dir, name string) (*outFile, error) {
	f, err := os.CreateTemp(dir, "."+name+".tmp*")
	if err != nil {
		return nil, explain(fmt.Errorf("dbgen: creating %s: %w", filepath.Join(dir, name), err), dir)
	}
	// CreateTemp makes 0600 files; data files are meant to be shared
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("dbgen: creating %s: %w", filepath.Join(dir, name), err)
	}
	return &outFile{File: f, final: filepath.Join(dir, name)}, nil
}

func (f *outFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	if err != nil {
		err = fmt.Errorf("%s: %w", f.final, err)
	}
	return n, err
}

func (f *outFile) commit() error {
	if err := f.File.Close(); err != nil {
		return fmt.Errorf("dbgen: closing %s: %w", f.final, err)
	}
	if err := os.Rename(f.File.Name(), f.final); err != nil {
		return fmt.Errorf("dbgen: renaming %s to %s: %w", f.File.Name(), f.final, err)
	}
	f.done = true
	return nil
}

func (f *outFile) abort() {
	if f.done {
		return
	}
	f.File.Close()
	os.Remove(f.File.Name())
	f.done = true
}

// explain adds what to do for the usual file system errors.
func explain(err error, dir string) error {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("%w: the disk holding %s is full; free space or write to another directory", err, dir)
	case errors.Is(err, syscall.EDQUOT):
		return fmt.Errorf("%w: disk quota exceeded for %s; free space or write to another directory", err, dir)
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return fmt.Errorf("%w: cannot write to %s; check its permissions or choose another directory", err, dir)
	}
	return err
}
