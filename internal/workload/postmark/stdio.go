package postmark

import (
	"io"
	"syscall"
	"unsafe"
)

// stdioBufsiz is the C library's BUFSIZ: the buffer of a FILE on a file whose st_blksize
// is 0 or not below it.
const stdioBufsiz = 8192

// stdioAlignMin is the smallest buffer for which the C library keeps direct reads and
// writes to whole multiples of the buffer; with a smaller one it passes the whole rest
// of a call through.
const stdioAlignMin = 128

// stream is a file used as Postmark's buffered mode uses it through the GNU C library's
// stdio (fopen, fread or fwrite of a block at a time, fclose), making the system calls
// that library makes, in the same order and sizes; Debian's postmark is linked to it.
// The behaviour, observed with strace on postmark and described in the library's
// manual and libio's comments, is:
//
//   - the buffer is set up on the first fread or fwrite, not at fopen: one fstat, and
//     its size is the file's st_blksize when that is above 0 and below BUFSIZ (8192),
//     else BUFSIZ;
//   - fopen(name, "a") seeks to the end (lseek(fd, 0, SEEK_END)) right after the open;
//   - fwrite fills the buffer; what does not fit first writes out the full buffer, then
//     goes straight to the file in a whole number of buffers, and the rest waits in
//     the buffer; fclose writes what waits;
//   - fread takes what the buffer holds; for the rest, less than a buffer refills the
//     buffer with one read of a whole buffer, a buffer or more is read straight into
//     the caller's memory, a whole number of buffers at a time.
//
// Go's bufio differs in the last two: it writes and reads a large block in one call
// of its own size, so with blocks larger than the buffer (the medium preset's 16 KiB)
// it made fewer, larger calls than postmark.
type stream struct {
	f fd
	// size is the FILE's buffer's size; 0 until the first fread or fwrite.
	size int
	// buf is the FILE's buffer's memory, kept from file to file.
	buf []byte
	// r and w delimit what the buffer holds when reading: buf[r:w] not yet taken.
	r, w int
	// pending is what waits to be written, at most size bytes: a slice of the
	// caller's memory while the caller's blocks follow one another there, as the
	// executor's consecutive pieces of its source do, else in buf. The C library
	// copies every block into its buffer; the copies were 1% of a run's CPU on tmpfs
	// (docs/postmark.md, "Against Debian's postmark"), and the system calls and the
	// bytes they write are the same without them.
	pending []byte
}

// open opens path (ending with a NUL) as fopen does: flags are fopen's mode as
// open(2) flags, and appending seeks to the end. The buffer is kept from the last
// file, as memory of the process (a FILE's buffer is malloc'ed and freed each time),
// not as contents: it is set up again at the first fread or fwrite.
func (s *stream) open(path []byte, flags int) error {
	f, err := open(path, flags, 0o666)
	if err != nil {
		return err
	}
	if flags&syscall.O_APPEND != 0 {
		if _, err := f.seekEnd(); err != nil {
			f.close()
			return err
		}
	}
	s.f, s.size, s.r, s.w, s.pending = f, 0, 0, 0, nil
	return nil
}

// setup sizes the buffer as the library does on the first fread or fwrite.
func (s *stream) setup() error {
	var st syscall.Stat_t
	if err := s.f.stat(&st); err != nil {
		return err
	}
	s.size = stdioBufferSize(int64(st.Blksize))
	if cap(s.buf) < s.size {
		s.buf = make([]byte, s.size)
	}
	s.buf = s.buf[:s.size]
	s.r, s.w, s.pending = 0, 0, nil
	return nil
}

// stdioBufferSize is the buffer the C library gives a file of this st_blksize.
func stdioBufferSize(blksize int64) int {
	if blksize > 0 && blksize < stdioBufsiz {
		return int(blksize)
	}
	return stdioBufsiz
}

// aligned is how much of n bytes goes straight to or from the file: a whole number of
// buffers.
func (s *stream) aligned(n int) int {
	if s.size < stdioAlignMin {
		return n
	}
	return n - n%s.size
}

// fwrite writes p as fwrite(p, 1, len(p), file) does. p's memory must not change
// until fclose: what waits to be written may still be there (pending).
func (s *stream) fwrite(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	if s.size == 0 {
		if err := s.setup(); err != nil {
			return err
		}
	} else {
		n := min(len(p), s.size-len(s.pending))
		s.hold(p[:n])
		p = p[n:]
		if len(p) == 0 {
			return nil
		}
	}
	if err := s.flush(); err != nil {
		return err
	}
	if n := s.aligned(len(p)); n > 0 {
		if _, err := s.f.Write(p[:n]); err != nil {
			return err
		}
		p = p[n:]
	}
	s.hold(p)
	return nil
}

// hold adds p, which fits, to what waits to be written: where p is, when it follows
// what waits in memory, else copied into the buffer.
func (s *stream) hold(p []byte) {
	switch {
	case len(p) == 0:
	case len(s.pending) == 0:
		s.pending = p
	case cap(s.pending)-len(s.pending) >= len(p) && unsafe.SliceData(s.pending[len(s.pending):cap(s.pending)]) == unsafe.SliceData(p):
		s.pending = s.pending[:len(s.pending)+len(p)]
	default:
		if unsafe.SliceData(s.pending) != unsafe.SliceData(s.buf) {
			s.pending = s.buf[:copy(s.buf, s.pending)]
		}
		s.pending = append(s.pending, p...) // within buf: pending and p fit in size
	}
}

// flush writes out what waits to be written.
func (s *stream) flush() error {
	if len(s.pending) == 0 {
		return nil
	}
	_, err := s.f.Write(s.pending)
	s.pending = nil
	return err
}

// fread fills p as fread(p, 1, len(p), file) does; io.ErrUnexpectedEOF if the file
// ends first.
func (s *stream) fread(p []byte) error { return s.read(p, true) }

// fskip is fread for a caller that does not look at the bytes: the same system calls,
// into the buffer and p alike, but what the buffer holds is not copied out to p (the
// copies were half a percent of a run's CPU on tmpfs).
func (s *stream) fskip(p []byte) error { return s.read(p, false) }

// read is fread, copying what the buffer holds to p only when keep is set.
func (s *stream) read(p []byte, keep bool) error {
	if s.size == 0 {
		if err := s.setup(); err != nil {
			return err
		}
	}
	for len(p) > 0 {
		n := min(len(p), s.w-s.r)
		if keep {
			copy(p, s.buf[s.r:s.r+n])
		}
		s.r += n
		p = p[n:]
		if len(p) == 0 {
			break
		}
		if len(p) < s.size {
			got, err := s.f.Read(s.buf)
			if err != nil {
				return eofIsShort(err)
			}
			s.r, s.w = 0, got
			continue
		}
		s.r, s.w = 0, 0
		got, err := s.f.Read(p[:s.aligned(len(p))])
		if err != nil {
			return eofIsShort(err)
		}
		p = p[got:]
	}
	return nil
}

func eofIsShort(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// fclose writes what waits and closes the file; the buffer stays for the next file.
func (s *stream) fclose() error {
	err := s.flush()
	if cerr := s.f.close(); err == nil {
		err = cerr
	}
	return err
}
