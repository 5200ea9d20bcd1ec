package emulator

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"time"

	"tierbench/internal/device"
)

// A trace file (format 2) is the magic line "TBTRACE2", one line of JSON (TraceHeader,
// at most 64 KiB), then 34-byte little-endian records:
//
//   - a request, one per request in submission order: submit time ns (int64), device
//     offset (int64), size (int64), file (uint64), op (uint8: 0 read, 1 write, 2 flush),
//     flags (uint8: 1 = O_DIRECT). Offsets are device offsets after the emulator's file
//     layout, so replaying through any model sees the same placement.
//   - a check record after every 4096 requests and one at the end: the number of requests
//     so far (uint64), the CRC-32C of every byte since the previous check record (the
//     first covers the magic line and the header), 20 zero bytes, op 0xC5 and flags (1 =
//     the end of the trace; nothing may follow it).
//
// Why the check records: a recording stopped by a killed emulator, a copy cut short or a
// damaged byte must not replay silently as a different workload. A damaged block is
// found to within 4096 requests, and a reader keeps at most one block in memory.
//
// Format 1 ("TBTRACE1") is the same without check records; it is still read, but a file
// cut at a record boundary, or a damaged byte that leaves a valid record, goes unnoticed.
const (
	traceMagic   = "TBTRACE2\n"
	traceMagicV1 = "TBTRACE1\n"
	traceRecLen  = 34
	// traceCheckEvery is the number of requests between check records.
	traceCheckEvery = 4096
	// traceCheckOp marks a check record; request ops are small numbers.
	traceCheckOp = 0xC5
	traceEndFlag = 1
	// maxTraceHeader bounds the header line, so a file that is not a trace cannot make
	// the reader buffer all of it looking for a newline.
	maxTraceHeader = 64 << 10
)

var traceCRC = crc32.MakeTable(crc32.Castagnoli)

// TraceHeader says where a trace was recorded.
type TraceHeader struct {
	Device   string    `json:"device"`
	Spec     string    `json:"spec"`
	Recorded time.Time `json:"recorded"`
}

// TraceRecord is one request of a trace.
type TraceRecord struct {
	At time.Duration
	device.Request
}

// TraceWriter writes a trace file; the emulator records one per device with a Trace
// path. Add is not safe for concurrent use.
type TraceWriter struct {
	f        *os.File
	w        *bufio.Writer
	buf      [traceRecLen]byte
	crc      uint32 // of every byte since the last check record
	requests uint64
	err      error
}

// CreateTrace creates the trace file at path and writes its header.
func CreateTrace(path string, h TraceHeader) (*TraceWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	t := &TraceWriter{f: f, w: bufio.NewWriterSize(f, 1<<20)}
	hj, err := json.Marshal(h)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("trace header: %w", err)
	}
	t.write([]byte(traceMagic))
	t.write(append(hj, '\n'))
	return t, nil
}

// write writes b and adds it to the running checksum.
func (t *TraceWriter) write(b []byte) {
	t.crc = crc32.Update(t.crc, traceCRC, b)
	if _, err := t.w.Write(b); err != nil && t.err == nil {
		t.err = err
	}
}

// Add records request r submitted at time at (since the mount); times must not
// decrease.
func (t *TraceWriter) Add(at time.Duration, r device.Request) {
	b := t.buf[:]
	binary.LittleEndian.PutUint64(b[0:], uint64(at))
	binary.LittleEndian.PutUint64(b[8:], uint64(r.Offset))
	binary.LittleEndian.PutUint64(b[16:], uint64(r.Size))
	binary.LittleEndian.PutUint64(b[24:], r.File)
	b[32] = byte(r.Op)
	b[33] = 0
	if r.Direct {
		b[33] = 1
	}
	t.write(b)
	t.requests++
	if t.requests%traceCheckEvery == 0 {
		t.check(0)
	}
}

// check writes a check record over the bytes since the previous one.
func (t *TraceWriter) check(flags byte) {
	var b [traceRecLen]byte
	binary.LittleEndian.PutUint64(b[0:], t.requests)
	binary.LittleEndian.PutUint32(b[8:], t.crc)
	b[32], b[33] = traceCheckOp, flags
	if _, err := t.w.Write(b[:]); err != nil && t.err == nil {
		t.err = err
	}
	t.crc = 0
}

// Close writes the end marker and closes the file: a trace without it reads as one
// that ended early.
func (t *TraceWriter) Close() error {
	t.check(traceEndFlag)
	err := t.w.Flush()
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	if t.err != nil {
		return fmt.Errorf("trace: %w", t.err)
	}
	return err
}
