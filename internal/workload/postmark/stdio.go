package postmark

import (
	"io"
	"syscall"
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
	f   fd
	buf []byte // the FILE's buffer; nil until the first fread or fwrite
	// r and w delimit the buffer's contents: buf[r:w] not yet read when reading,
	// buf[:w] not yet written when writing.
	r, w int
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
	s.f, s.buf, s.r, s.w = f, s.buf[:0], 0, 0
	return nil
}

// setup sizes the buffer as the library does on the first fread or fwrite.
func (s *stream) setup() error {
	var st syscall.Stat_t
	if err := s.f.stat(&st); err != nil {
		return err
	}
	size := stdioBufferSize(int64(st.Blksize))
	if cap(s.buf) >= size {
		s.buf = s.buf[:size]
	} else {
		s.buf = make([]byte, size)
	}
	s.r, s.w = 0, 0
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
	if len(s.buf) < stdioAlignMin {
		return n
	}
	return n - n%len(s.buf)
}

// fwrite writes p as fwrite(p, 1, len(p), file) does.
func (s *stream) fwrite(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	if len(s.buf) == 0 {
		if err := s.setup(); err != nil {
			return err
		}
	} else {
		n := copy(s.buf[s.w:], p)
		s.w += n
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
	s.w = copy(s.buf, p)
	return nil
}

// flush writes out what waits in the buffer.
func (s *stream) flush() error {
	if s.w == 0 {
		return nil
	}
	_, err := s.f.Write(s.buf[:s.w])
	s.w = 0
	return err
}

// fread fills p as fread(p, 1, len(p), file) does; io.ErrUnexpectedEOF if the file
// ends first.
func (s *stream) fread(p []byte) error {
	if len(s.buf) == 0 {
		if err := s.setup(); err != nil {
			return err
		}
	}
	for len(p) > 0 {
		n := copy(p, s.buf[s.r:s.w])
		s.r += n
		p = p[n:]
		if len(p) == 0 {
			break
		}
		if len(p) < len(s.buf) {
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
