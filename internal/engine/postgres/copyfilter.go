package postgres

import (
	"bytes"
	"io"
)

// trailingBarFilter turns dbgen lines ("a|b|c|\n") into COPY text lines ("a|b|c\n") as
// they stream through.
type trailingBarFilter struct {
	r       io.Reader
	buf     []byte
	out     []byte
	pending []byte
	carry   bool // the previous chunk ended with '|'
	err     error
}

func newTrailingBarFilter(r io.Reader) *trailingBarFilter {
	return &trailingBarFilter{r: r, buf: make([]byte, 256<<10), out: make([]byte, 0, 256<<10+1)}
}

func (f *trailingBarFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		f.fill()
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *trailingBarFilter) fill() {
	n, err := f.r.Read(f.buf)
	chunk := f.buf[:n]
	out := f.out[:0]
	if f.carry && n > 0 {
		f.carry = false
		if chunk[0] != '\n' {
			out = append(out, '|')
		}
	}
	for len(chunk) > 0 {
		i := bytes.Index(chunk, []byte("|\n"))
		if i < 0 {
			break
		}
		out = append(out, chunk[:i]...)
		out = append(out, '\n')
		chunk = chunk[i+2:]
	}
	if len(chunk) > 0 && chunk[len(chunk)-1] == '|' {
		chunk = chunk[:len(chunk)-1]
		f.carry = true
	}
	out = append(out, chunk...)
	f.pending, f.out = out, out
	if err != nil {
		// A '|' held back at the very end is a last line's trailing bar: drop it.
		f.err = err
	}
}
