package emulator

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"tierbench/internal/device"
)

// A trace file is the magic line "TBTRACE1", one line of JSON (TraceHeader), then one
// 34-byte little-endian record per request in submission order: submit time ns (int64),
// device offset (int64), size (int64), file (uint64), op (uint8), flags (uint8; 1 =
// O_DIRECT). Offsets are device offsets after the emulator's file layout, so replaying
// through any model sees the same placement.
const (
	traceMagic  = "TBTRACE1\n"
	traceRecLen = 34
)

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

type traceWriter struct {
	f   *os.File
	w   *bufio.Writer
	buf [traceRecLen]byte
	err error
}

func createTrace(path string, h TraceHeader) (*traceWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	t := &traceWriter{f: f, w: bufio.NewWriterSize(f, 1<<20)}
	hj, _ := json.Marshal(h)
	t.w.WriteString(traceMagic)
	t.w.Write(hj)
	t.w.WriteByte('\n')
	return t, nil
}

func (t *traceWriter) add(at time.Duration, r device.Request) {
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
	if _, err := t.w.Write(b); err != nil && t.err == nil {
		t.err = err
	}
}

func (t *traceWriter) close() error {
	err := t.w.Flush()
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	if t.err != nil {
		return fmt.Errorf("trace: %w", t.err)
	}
	return err
}

// ReadTrace reads a whole trace file.
func ReadTrace(r io.Reader) (TraceHeader, []TraceRecord, error) {
	var h TraceHeader
	br := bufio.NewReaderSize(r, 1<<20)
	magic := make([]byte, len(traceMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != traceMagic {
		return h, nil, errors.New("not a tierbench trace (no TBTRACE1 header): record one with a device's Trace path")
	}
	line, err := br.ReadBytes('\n')
	if err != nil {
		return h, nil, fmt.Errorf("trace header: %w", err)
	}
	if err := json.Unmarshal(line, &h); err != nil {
		return h, nil, fmt.Errorf("trace header: %w", err)
	}
	var recs []TraceRecord
	var b [traceRecLen]byte
	for {
		_, err := io.ReadFull(br, b[:])
		if err == io.EOF {
			return h, recs, nil
		}
		if err != nil {
			// a server killed mid-write leaves a partial record: keep what is whole
			return h, recs, nil
		}
		recs = append(recs, TraceRecord{
			At: time.Duration(binary.LittleEndian.Uint64(b[0:])),
			Request: device.Request{
				Offset: int64(binary.LittleEndian.Uint64(b[8:])),
				Size:   int64(binary.LittleEndian.Uint64(b[16:])),
				File:   binary.LittleEndian.Uint64(b[24:]),
				Op:     device.Op(b[32]),
				Direct: b[33]&1 != 0,
			},
		})
	}
}

// ReplayResult is what a device would have spent on a trace.
type ReplayResult struct {
	Spec     string `json:"spec"`
	Requests int64  `json:"requests"`
	// IOTime is the sum of every request's latency (completion - submit): the time the
	// workload waited on I/O, summed over its threads.
	IOTime time.Duration `json:"io_time_ns"`
	// Busy is the device's busy time; Span the time from the first submit to the last
	// completion.
	Busy    time.Duration `json:"busy_ns"`
	Span    time.Duration `json:"span_ns"`
	Latency Histogram     `json:"latency"`
	Model   device.Stats  `json:"model"`
	EnergyJ float64       `json:"energy_j"`
}

// Replay submits recs to m at their recorded times. The trace is open loop: a request
// is submitted when it was in the recording, however long the replayed device takes,
// so a slower device than the recorded one shows as longer latencies, not a later
// workload.
func Replay(recs []TraceRecord, m device.Model) ReplayResult {
	res := ReplayResult{Spec: m.Name()}
	var first, last time.Duration
	for i, r := range recs {
		done := m.Submit(r.At, r.Request)
		if i == 0 {
			first = r.At
		}
		last = max(last, done)
		res.IOTime += done - r.At
		res.Latency.Record(done - r.At)
		res.Requests++
	}
	res.Span = last - first
	res.Model = m.Stats()
	res.Busy = res.Model.Busy
	res.EnergyJ = device.Energy(m, last)
	return res
}

// ReplayFile replays the trace file at path through a fresh model of spec.
func ReplayFile(path, spec string, profiles ...string) (ReplayResult, error) {
	reg, err := device.Load(profiles...)
	if err != nil {
		return ReplayResult{}, err
	}
	m, err := buildModel(reg, spec)
	if err != nil {
		return ReplayResult{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return ReplayResult{}, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	_, recs, err := ReadTrace(f)
	if err != nil {
		return ReplayResult{}, fmt.Errorf("%s: %w", path, err)
	}
	return Replay(recs, m), nil
}
