package study

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// walkTree calls each for every entry under src (src itself first, parents before
// their children), with the entry's path, the path it has under dst and its
// file info: the walk that copyTree and move (scratch.go) share, each deciding
// what to make of a directory, a file or a link.
func walkTree(src, dst string, each func(path, target string, info fs.FileInfo) error) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return each(path, filepath.Join(dst, rel), info)
	})
}

// copyTree copies src (a directory or a file) to dst: directories, regular files and
// symbolic links, each with its mode, owner and modification time, since a managed
// server runs as its own user and refuses files it does not own. A link whose target
// is under from points under to instead (PostgreSQL links its WAL directory and its
// tablespaces by absolute path). It returns the bytes and files copied; anything
// else (a socket, a device) is an error.
func copyTree(src, dst, from, to string) (int64, int, error) {
	var total int64
	var files int
	err := walkTree(src, dst, func(path, target string, info fs.FileInfo) error {
		switch mode := info.Mode(); {
		case mode.IsDir():
			if err := os.MkdirAll(target, 0o700); err != nil {
				return err
			}
		case mode.IsRegular():
			n, err := copyFile(path, target, 0o600, false)
			if err != nil {
				return err
			}
			total += n
			files++
		case mode&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			if rest, ok := strings.CutPrefix(link, from); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
				link = to + rest
			}
			if err := os.Symlink(link, target); err != nil {
				return err
			}
			files++
		default:
			return fmt.Errorf("%s is a %s: a snapshot holds directories, files and links only", path, mode.Type())
		}
		return keepAttributes(target, info)
	})
	return total, files, err
}

// copyFile copies a regular file's bytes into dst, made with perm (io.Copy uses
// copy_file_range where the file system has it); durable syncs dst before it is
// closed, for a copy that replaces its source (scratch.go's move into OUT).
func copyFile(src, dst string, perm fs.FileMode, durable bool) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if err == nil && durable {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// keepAttributes gives path the mode, owner and modification time of info.
func keepAttributes(path string, info fs.FileInfo) error {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		if err := os.Lchown(path, int(st.Uid), int(st.Gid)); err != nil {
			return err
		}
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return nil
	}
	if err := os.Chmod(path, info.Mode().Perm()|info.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)); err != nil {
		return err
	}
	return os.Chtimes(path, info.ModTime(), info.ModTime())
}
