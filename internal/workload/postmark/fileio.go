package postmark

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"syscall"
)

// executor does the operations in one working directory, with Postmark's open flags
// and block sizes, and in buffered mode the system calls of the C library's stdio
// (stream). It allocates nothing per operation: the path, the stream and its buffer
// are built in place, as the garbage they made was a few percent of a run's CPU on
// tmpfs, where the kernel's own work is small (docs/postmark.md, "Against Debian's
// postmark").
type executor struct {
	dir     string
	cfg     Config
	source  []byte
	readBuf []byte
	stream  stream // the FILE of buffered mode, reused from file to file
	path    []byte // the operation's path, as setPath builds it
}

func newExecutor(dir string, cfg Config, source []byte) *executor {
	return &executor{dir: filepath.Clean(dir), cfg: cfg, source: source, readBuf: make([]byte, cfg.ReadBlock)}
}

// setPath builds the operation's file as Postmark names it, "DIR/s3/17" or "DIR/17",
// followed by the NUL that ends a path for the kernel.
func (x *executor) setPath(op Op) {
	b := append(append(x.path[:0], x.dir...), '/')
	if op.Subdir >= 0 {
		b = append(strconv.AppendInt(append(b, 's'), int64(op.Subdir), 10), '/')
	}
	x.path = append(strconv.AppendInt(b, int64(op.File), 10), 0)
}

// pathString is the path setPath built, for people.
func (x *executor) pathString() string { return string(x.path[:len(x.path)-1]) }

// do runs one operation. Errors name the file and the operation.
func (x *executor) do(op Op) error {
	x.setPath(op)
	path := x.path
	var err error
	switch op.Kind {
	case Create:
		// fopen(name, "w") when buffered; open(O_RDWR|O_CREAT, 0644) when not.
		err = x.write(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC, syscall.O_RDWR|syscall.O_CREAT, 0o644, op.Bytes)
	case Append:
		// fopen(name, "a") when buffered; open(O_RDWR|O_APPEND) when not.
		err = x.write(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_APPEND, syscall.O_RDWR|syscall.O_APPEND, 0, op.Bytes)
	case Read:
		err = x.read(path, op.Bytes)
	case Delete:
		err = unlink(path)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", op.Kind, x.pathString(), err)
	}
	return nil
}

// write writes n bytes of the source in blocks of WriteBlock, then closes the file:
// through stdio opened with stdioFlags when buffered, else with plain write calls on
// a file opened with rawFlags and perm. path ends with a NUL.
func (x *executor) write(path []byte, stdioFlags, rawFlags int, perm uint32, n int) error {
	if x.cfg.Buffered {
		s := &x.stream
		if err := s.open(path, stdioFlags); err != nil {
			return err
		}
		err := inBlocks(n, x.cfg.WriteBlock, func(lo, hi int) error { return s.fwrite(x.source[lo:hi]) })
		if cerr := s.fclose(); err == nil {
			err = cerr
		}
		return err
	}
	f, err := open(path, rawFlags, perm)
	if err != nil {
		return err
	}
	err = inBlocks(n, x.cfg.WriteBlock, func(lo, hi int) error { _, err := f.Write(x.source[lo:hi]); return err })
	if cerr := f.close(); err == nil {
		err = cerr
	}
	return err
}

// read reads the whole file, n bytes, in blocks of ReadBlock. path ends with a NUL.
func (x *executor) read(path []byte, n int) error {
	var err error
	if x.cfg.Buffered {
		s := &x.stream
		if err = s.open(path, syscall.O_RDONLY); err != nil {
			return err
		}
		err = inBlocks(n, x.cfg.ReadBlock, func(lo, hi int) error { return s.fskip(x.readBuf[:hi-lo]) })
		s.f.close()
	} else {
		var f fd
		if f, err = open(path, syscall.O_RDONLY, 0); err != nil {
			return err
		}
		err = inBlocks(n, x.cfg.ReadBlock, func(lo, hi int) error { return f.readFull(x.readBuf[:hi-lo]) })
		f.close()
	}
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return fmt.Errorf("the file is shorter than the %d bytes written to it: was it changed while the run went on?", n)
	}
	return err
}

// inBlocks calls do for each whole block of n bytes, then for the rest, as Postmark
// does: the rest is asked for even when it is empty, which unbuffered costs a read or
// write call of 0 bytes (stdio makes none).
func inBlocks(n, block int, do func(lo, hi int) error) error {
	whole := n - n%block
	for lo := 0; lo < whole; lo += block {
		if err := do(lo, lo+block); err != nil {
			return err
		}
	}
	return do(whole, n)
}

// fd is an open file used through plain system calls, as Postmark's C does: no
// runtime poller, no finalizer, one read(2) or write(2) per call.
type fd int

// sawCall, set by tests only, is told of every system call the executor makes on the
// run's files, before it is made: its name (open, lseek, fstat, read, write, close,
// unlink) and, for a read or a write, the bytes asked for.
var sawCall func(call string, n int)

// open opens path, which ends with a NUL.
func open(path []byte, flags int, perm uint32) (fd, error) {
	if sawCall != nil {
		sawCall("open", 0)
	}
	for {
		n, err := sysOpen(path, flags|syscall.O_CLOEXEC, perm)
		if err != syscall.EINTR {
			return fd(n), err
		}
	}
}

// Write writes all of p, with one write call also when p is empty.
func (f fd) Write(p []byte) (int, error) {
	done := 0
	for {
		if sawCall != nil {
			sawCall("write", len(p)-done)
		}
		n, err := sysWrite(int(f), p[done:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return done, err
		}
		if done += n; done >= len(p) {
			return done, nil
		}
	}
}

func (f fd) Read(p []byte) (int, error) {
	for {
		if sawCall != nil {
			sawCall("read", len(p))
		}
		n, err := sysRead(int(f), p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 && len(p) > 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

// readFull fills p, with one read call also when p is empty; io.ErrUnexpectedEOF if
// the file ends first.
func (f fd) readFull(p []byte) error {
	if len(p) == 0 {
		_, err := f.Read(p)
		return err
	}
	_, err := io.ReadFull(f, p)
	return err
}

// seekEnd is lseek(fd, 0, SEEK_END).
func (f fd) seekEnd() (int64, error) {
	if sawCall != nil {
		sawCall("lseek", 0)
	}
	return sysSeekEnd(int(f))
}

func (f fd) stat(st *syscall.Stat_t) error {
	if sawCall != nil {
		sawCall("fstat", 0)
	}
	return sysFstat(int(f), st)
}

func (f fd) close() error {
	if sawCall != nil {
		sawCall("close", 0)
	}
	return sysClose(int(f))
}

// unlink removes path, which ends with a NUL.
func unlink(path []byte) error {
	if sawCall != nil {
		sawCall("unlink", 0)
	}
	return sysUnlink(path)
}
