package emulator

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"time"

	"tierbench/internal/device"
)

// Limits of a request in a trace. A record outside them is damage, not a workload: the
// models would otherwise turn one bad record into exabytes written, negative times or a
// page cache that never stops growing.
const (
	// MaxTraceRequest is the largest read or write a trace may hold: 32 MiB, the largest
	// single ATA command (65536 sectors of 512 bytes). The emulator records what FUSE
	// passes, at most 1 MiB.
	MaxTraceRequest = 32 << 20
	// MaxTraceOffset bounds a request's end on the device: 1 EiB. The emulator's layout
	// never reuses space, so offsets may pass the capacity (models wrap them), but no
	// recording lays out an exbibyte.
	MaxTraceOffset = 1 << 60
	// MaxTraceTime bounds a request's time since the mount: 2^60 ns, 36 years, which
	// leaves the models 250 years of int64 nanoseconds to add latencies to.
	MaxTraceTime = time.Duration(1 << 60)
)

var (
	// ErrTraceTruncated is wrapped by the error of a trace that ends before its end
	// marker (or in the middle of a record).
	ErrTraceTruncated = errors.New("trace ends early")
	// ErrTraceCorrupt is wrapped by the error of a trace with a record that breaks the
	// format or a block that does not match its checksum.
	ErrTraceCorrupt = errors.New("trace is damaged")
)

// TraceError says what is wrong with a trace and where.
type TraceError struct {
	// Record is the 1-based number of the request at fault; with Check, the number of
	// requests before the check record at fault; 0 for the header.
	Record int64
	Check  bool
	Offset int64 // byte offset in the file
	Reason string
	Err    error // ErrTraceTruncated or ErrTraceCorrupt
}

func (e *TraceError) Error() string {
	switch {
	case e.Check:
		return fmt.Sprintf("check record after request %d (byte %d): %s", e.Record, e.Offset, e.Reason)
	case e.Record == 0:
		return fmt.Sprintf("header (byte %d): %s", e.Offset, e.Reason)
	}
	return fmt.Sprintf("record %d (byte %d): %s", e.Record, e.Offset, e.Reason)
}

func (e *TraceError) Unwrap() error { return e.Err }

// TraceReader reads a trace one request at a time, in bounded memory: it holds at most
// one block (the requests between two check records) and hands a block out only once
// its checksum matched.
type TraceReader struct {
	// Partial makes a trace that ends early (a recording stopped by a killed emulator, a
	// copy cut short) hand out every whole, valid request it holds, including those after
	// the last check record, before Next returns the ErrTraceTruncated error. Set it
	// before the first Next.
	Partial bool

	header     TraceHeader
	format     int
	br         *bufio.Reader
	off        int64  // bytes consumed
	crc        uint32 // of the bytes since the last check record
	requests   int64  // requests read
	sinceCheck int
	last       time.Duration // the previous request's time
	pending    []TraceRecord // read, waiting for their check record (format 2)
	ready      []TraceRecord // to hand out
	next       int           // index into ready
	checked    bool          // format 2 and the end marker was found
	unchecked  int64         // requests handed out without a checksum (Partial)
	err        error         // sticky: io.EOF at a good end
}

// NewTraceReader reads a trace's magic line and header.
func NewTraceReader(r io.Reader) (*TraceReader, error) {
	t := &TraceReader{br: bufio.NewReaderSize(r, maxTraceHeader)}
	magic := make([]byte, len(traceMagic))
	n, err := io.ReadFull(t.br, magic)
	switch {
	case string(magic) == traceMagic:
		t.format = 2
	case string(magic) == traceMagicV1:
		t.format = 1
	case n == len(magic) && bytes.HasPrefix(magic, []byte("TBTRACE")) && magic[8] == '\n':
		return nil, fmt.Errorf("trace format %q is not one this tierbench reads (TBTRACE1, TBTRACE2): use the tierbench that recorded it", magic[:8])
	default:
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return nil, fmt.Errorf("read trace: %w", err)
		}
		return nil, errors.New("not a tierbench trace (it does not start with TBTRACE2): record one with --record-trace or a device's Trace path")
	}
	t.off = int64(n)
	t.crc = crc32.Update(0, traceCRC, magic)
	// the reader's buffer is the header's limit: ReadSlice stops when it is full
	line, err := t.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return nil, t.headerError(ErrTraceCorrupt, "no end of line within %d KiB: not a trace header", maxTraceHeader>>10)
	}
	if err != nil {
		if err == io.EOF {
			return nil, t.headerError(ErrTraceTruncated, "the file ends inside the header line")
		}
		return nil, fmt.Errorf("read trace: %w", err)
	}
	if err := json.Unmarshal(line, &t.header); err != nil {
		return nil, t.headerError(ErrTraceCorrupt, "not the JSON header a trace starts with (%v)", err)
	}
	t.crc = crc32.Update(t.crc, traceCRC, line)
	t.off += int64(len(line))
	return t, nil
}

func (t *TraceReader) headerError(kind error, format string, args ...any) error {
	return &TraceError{Offset: int64(len(traceMagic)), Reason: fmt.Sprintf(format, args...), Err: kind}
}

// Header is where the trace was recorded.
func (t *TraceReader) Header() TraceHeader { return t.header }

// Format is the trace's format version: 1 (no checksums) or 2.
func (t *TraceReader) Format() int { return t.format }

// Checked says every request handed out was covered by a matching checksum and the end
// marker was found. It is final once Next has returned io.EOF.
func (t *TraceReader) Checked() bool { return t.checked && t.unchecked == 0 }

// Unchecked is how many requests were handed out without a checksum: all of a format 1
// trace, and with Partial those after the last check record of a trace that ends early.
func (t *TraceReader) Unchecked() int64 { return t.unchecked }

// Next returns the next request. At the end of a whole trace it returns io.EOF; for a
// damaged or truncated one, a *TraceError wrapping ErrTraceCorrupt or ErrTraceTruncated.
func (t *TraceReader) Next() (TraceRecord, error) {
	for t.next >= len(t.ready) {
		if t.err != nil {
			return TraceRecord{}, t.err
		}
		t.ready, t.next = t.ready[:0], 0
		t.fill()
	}
	r := t.ready[t.next]
	t.next++
	return r, nil
}

// fill reads records until it has requests to hand out or an error (t.err).
func (t *TraceReader) fill() {
	var b [traceRecLen]byte
	for len(t.ready) == 0 && t.err == nil {
		at := t.off
		n, err := io.ReadFull(t.br, b[:])
		t.off += int64(n)
		switch {
		case err == io.EOF:
			if t.format == 1 {
				t.err = io.EOF
				return
			}
			t.truncated(&TraceError{Record: t.requests, Offset: at, Err: ErrTraceTruncated,
				Reason: fmt.Sprintf("the trace ends after %d requests without its end marker: the recording was stopped (a killed emulator) or the file was cut short", t.requests)})
			return
		case err == io.ErrUnexpectedEOF:
			t.truncated(&TraceError{Record: t.requests + 1, Offset: at, Err: ErrTraceTruncated,
				Reason: fmt.Sprintf("the trace ends %d bytes into this %d-byte record: the recording was stopped (a killed emulator) or the file was cut short", n, traceRecLen)})
			return
		case err != nil:
			t.err = fmt.Errorf("read trace at byte %d: %w", at, err)
			return
		}
		if t.format == 2 && b[32] == traceCheckOp {
			t.err = t.check(b[:], at)
			continue
		}
		t.requests++
		if t.format == 2 && t.sinceCheck == traceCheckEvery {
			t.err = &TraceError{Record: t.requests, Offset: at, Err: ErrTraceCorrupt,
				Reason: fmt.Sprintf("expected the check record that follows every %d requests", traceCheckEvery)}
			return
		}
		r, reason := t.decode(b[:])
		if reason != "" {
			t.err = &TraceError{Record: t.requests, Offset: at, Err: ErrTraceCorrupt, Reason: reason}
			return
		}
		t.last = r.At
		if t.format == 1 {
			t.ready = append(t.ready, r)
			t.unchecked++
			continue
		}
		t.crc = crc32.Update(t.crc, traceCRC, b[:])
		t.sinceCheck++
		t.pending = append(t.pending, r)
	}
}

// decode checks one request record; reason says what is wrong with it.
func (t *TraceReader) decode(b []byte) (r TraceRecord, reason string) {
	r = TraceRecord{
		At: time.Duration(binary.LittleEndian.Uint64(b[0:])),
		Request: device.Request{
			Offset: int64(binary.LittleEndian.Uint64(b[8:])),
			Size:   int64(binary.LittleEndian.Uint64(b[16:])),
			File:   binary.LittleEndian.Uint64(b[24:]),
			Op:     device.Op(b[32]),
			Direct: b[33]&1 != 0,
		},
	}
	switch {
	case b[32] > byte(device.OpFlush):
		return r, fmt.Sprintf("operation %d is none of read (0), write (1) or flush (2)", b[32])
	case b[33]&^1 != 0:
		return r, fmt.Sprintf("flags %#02x: only 1 (O_DIRECT) is defined", b[33])
	case r.At < 0 || r.At > MaxTraceTime:
		return r, fmt.Sprintf("time %d ns is outside 0 to %d ns (36 years)", int64(r.At), int64(MaxTraceTime))
	case r.At < t.last:
		return r, fmt.Sprintf("time %v is before the previous request's %v: requests are recorded in submission order", r.At, t.last)
	case r.Op == device.OpFlush && (r.Offset != 0 || r.Size != 0):
		return r, fmt.Sprintf("a flush with offset %d and size %d: flushes carry neither", r.Offset, r.Size)
	case r.Offset < 0 || r.Offset > MaxTraceOffset:
		return r, fmt.Sprintf("offset %d is outside 0 to %d (1 EiB)", r.Offset, int64(MaxTraceOffset))
	case r.Size < 0 || r.Size > MaxTraceRequest:
		return r, fmt.Sprintf("size %d bytes is outside 0 to %d (32 MiB, the largest request a device is asked)", r.Size, MaxTraceRequest)
	case r.Offset+r.Size > MaxTraceOffset:
		return r, fmt.Sprintf("offset %d + size %d ends past %d (1 EiB)", r.Offset, r.Size, int64(MaxTraceOffset))
	}
	return r, ""
}

// check verifies a check record at byte off and releases the block it covers.
func (t *TraceReader) check(b []byte, off int64) error {
	bad := func(format string, args ...any) error {
		return &TraceError{Record: t.requests, Check: true, Offset: off, Err: ErrTraceCorrupt, Reason: fmt.Sprintf(format, args...)}
	}
	count := binary.LittleEndian.Uint64(b[0:])
	sum := binary.LittleEndian.Uint32(b[8:])
	switch {
	case b[33]&^traceEndFlag != 0 || !bytes.Equal(b[12:32], make([]byte, 20)):
		return bad("not a check record (its reserved bytes are not zero)")
	case count != uint64(t.requests):
		return bad("it counts %d requests, but %d were read: requests are missing or were added", count, t.requests)
	case sum != t.crc:
		return bad("the %d requests since the previous check record (bytes %d to %d) do not match their checksum: the file was altered after it was written",
			t.sinceCheck, off-int64(t.sinceCheck)*traceRecLen, off)
	}
	t.ready, t.pending = t.pending, t.ready[:0]
	t.crc, t.sinceCheck = 0, 0
	if b[33]&traceEndFlag == 0 {
		return nil
	}
	if _, err := t.br.Peek(1); err == nil {
		return bad("there is data after the end marker")
	} else if err != io.EOF {
		return fmt.Errorf("read trace at byte %d: %w", off+traceRecLen, err)
	}
	t.checked = true
	return io.EOF
}

// truncated ends the trace with err; with Partial the requests read since the last check
// record are handed out first.
func (t *TraceReader) truncated(err *TraceError) {
	if t.Partial {
		t.unchecked += int64(len(t.pending))
		t.ready, t.pending = t.pending, nil
	}
	t.err = err
}
