package files

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"syscall"
)

// executor does the operations in one working directory, with Postmark's open flags
// and block sizes.
type executor struct {
	dir      string
	cfg      Config
	source   []byte
	readBuf  []byte
	bw       *bufio.Writer
	br       *bufio.Reader
	bufBytes int // size of bw and br: the preferred I/O size of the files
}

func newExecutor(dir string, cfg Config, source []byte) *executor {
	return &executor{dir: dir, cfg: cfg, source: source, readBuf: make([]byte, cfg.ReadBlock)}
}

// do runs one operation. Errors name the file and the operation.
func (x *executor) do(op Op) error {
	path := filepath.Join(x.dir, op.Path())
	var err error
	switch op.Kind {
	case Create:
		// fopen(name, "w") when buffered; open(O_RDWR|O_CREAT, 0644) when not.
		flags, perm := syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC, uint32(0o666)
		if !x.cfg.Buffered {
			flags, perm = syscall.O_RDWR|syscall.O_CREAT, 0o644
		}
		err = x.write(path, flags, perm, op.Bytes)
	case Append:
		// fopen(name, "a") when buffered; open(O_RDWR|O_APPEND) when not.
		flags := syscall.O_WRONLY | syscall.O_CREAT | syscall.O_APPEND
		if !x.cfg.Buffered {
			flags = syscall.O_RDWR | syscall.O_APPEND
		}
		err = x.write(path, flags, 0o666, op.Bytes)
	case Read:
		err = x.read(path, op.Bytes)
	case Delete:
		err = syscall.Unlink(path)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", op.Kind, path, err)
	}
	return nil
}

// write writes n bytes of the source in blocks of WriteBlock, then closes the file.
func (x *executor) write(path string, flags int, perm uint32, n int) error {
	f, err := open(path, flags, perm)
	if err != nil {
		return err
	}
	var w io.Writer = f
	if x.cfg.Buffered {
		x.buffers(f)
		x.bw.Reset(f)
		w = x.bw
	}
	for off := 0; off < n && err == nil; off += x.cfg.WriteBlock {
		_, err = w.Write(x.source[off:min(off+x.cfg.WriteBlock, n)])
	}
	if err == nil && x.cfg.Buffered {
		err = x.bw.Flush()
	}
	if cerr := f.close(); err == nil {
		err = cerr
	}
	return err
}

// read reads the whole file, n bytes, in blocks of ReadBlock.
func (x *executor) read(path string, n int) error {
	f, err := open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.close()
	var r io.Reader = f
	if x.cfg.Buffered {
		x.buffers(f)
		x.br.Reset(f)
		r = x.br
	}
	for left := n; left > 0; left -= x.cfg.ReadBlock {
		if _, err := io.ReadFull(r, x.readBuf[:min(left, x.cfg.ReadBlock)]); err != nil {
			if err == io.ErrUnexpectedEOF || err == io.EOF {
				return fmt.Errorf("the file is shorter than the %d bytes written to it: was it changed while the run went on?", n)
			}
			return err
		}
	}
	return nil
}

// buffers sizes the process's I/O buffers as the C library sizes a FILE's: to the
// file's preferred I/O size (st_blksize), read with fstat as the library does when it
// first uses a file.
func (x *executor) buffers(f fd) {
	size := 4096
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f), &st); err == nil && st.Blksize > 0 {
		size = int(st.Blksize)
	}
	if x.bw == nil || size != x.bufBytes {
		x.bw, x.br, x.bufBytes = bufio.NewWriterSize(nil, size), bufio.NewReaderSize(nil, size), size
	}
}

// fd is an open file used through plain system calls, as Postmark's C does: no
// runtime poller, no finalizer, one read(2) or write(2) per call.
type fd int

func open(path string, flags int, perm uint32) (fd, error) {
	for {
		n, err := syscall.Open(path, flags|syscall.O_CLOEXEC, perm)
		if err != syscall.EINTR {
			return fd(n), err
		}
	}
}

func (f fd) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n, err := syscall.Write(int(f), p[done:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return done, err
		}
		done += n
	}
	return done, nil
}

func (f fd) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(f), p)
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

func (f fd) close() error { return syscall.Close(int(f)) }
