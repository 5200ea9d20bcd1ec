package emulator

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tierbench/internal/device"
)

// testRecords are n requests 1 ms apart: reads and writes of 8 KiB, a flush every 10th.
func testRecords(n int) []TraceRecord {
	recs := make([]TraceRecord, n)
	for i := range recs {
		r := device.Request{Op: device.Op(i % 2), Offset: int64(i%1000) * 8192, Size: 8192, File: uint64(1 + i%3), Direct: i%7 == 0}
		if i%10 == 9 {
			r = device.Request{Op: device.OpFlush, File: 1}
		}
		recs[i] = TraceRecord{At: time.Duration(i) * time.Millisecond, Request: r}
	}
	return recs
}

// writeTrace records recs with the emulator's writer and returns the file's bytes.
func writeTrace(t testing.TB, recs []TraceRecord) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.trace")
	w, err := CreateTrace(path, TraceHeader{Device: "data", Spec: "hdd-7200", Recorded: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		w.Add(r.At, r.Request)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readAll reads every request of a trace.
func readAll(data []byte, partial bool) (*TraceReader, []TraceRecord, error) {
	tr, err := NewTraceReader(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	tr.Partial = partial
	var recs []TraceRecord
	for {
		r, err := tr.Next()
		if err == io.EOF {
			return tr, recs, nil
		}
		if err != nil {
			return tr, recs, err
		}
		recs = append(recs, r)
	}
}

// recordAt is the byte offset of request i (0-based) of a format 2 trace.
func recordAt(data []byte, i int) int {
	return bytes.IndexByte(data, '\n') + 1 + bytes.IndexByte(data[bytes.IndexByte(data, '\n')+1:], '\n') + 1 + (i+i/traceCheckEvery)*traceRecLen
}

func TestTraceRoundTrip(t *testing.T) {
	want := testRecords(2*traceCheckEvery + 5) // two full blocks and a part
	data := writeTrace(t, want)
	tr, got, err := readAll(data, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d requests, wrote %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("request %d: read %+v, wrote %+v", i, got[i], want[i])
		}
	}
	if h := tr.Header(); h.Device != "data" || h.Spec != "hdd-7200" || tr.Format() != 2 || !tr.Checked() || tr.Unchecked() != 0 {
		t.Fatalf("header %+v, format %d, checked %v, unchecked %d", h, tr.Format(), tr.Checked(), tr.Unchecked())
	}
	// magic, header, requests and 3 check records (two blocks and the end)
	if n := len(data) - recordAt(data, 0); n != (len(want)+3)*traceRecLen {
		t.Fatalf("%d bytes of records, want %d", n, (len(want)+3)*traceRecLen)
	}
}

// TestTraceDamage: every kind of damage is refused with the record and byte at fault.
func TestTraceDamage(t *testing.T) {
	good := writeTrace(t, testRecords(traceCheckEvery+100))
	at := func(i int) int { return recordAt(good, i) }
	put64 := func(i, field int, v uint64) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[at(i)+field:], v); return b }
	}
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
		want string // in the error
	}{
		{"40 bytes overwritten", func(b []byte) []byte { copy(b[at(500)+5:], bytes.Repeat([]byte{0x7f}, 40)); return b },
			"record 501 (byte " + strconv.Itoa(at(500)) + "): operation 127"},
		{"unknown operation", func(b []byte) []byte { b[at(500)+32] = 7; return b }, "record 501 (byte " + strconv.Itoa(at(500)) + "): operation 7 is none of read (0), write (1) or flush (2)"},
		{"unknown flag", func(b []byte) []byte { b[at(500)+33] = 0x80; return b }, "record 501 (byte " + strconv.Itoa(at(500)) + "): flags 0x80"},
		{"size of exabytes", put64(500, 16, 1<<62), "record 501 (byte " + strconv.Itoa(at(500)) + "): size 4611686018427387904 bytes is outside 0 to 33554432"},
		{"negative size", put64(500, 16, ^uint64(0)), "record 501 (byte " + strconv.Itoa(at(500)) + "): size -1 bytes"},
		{"negative offset", put64(500, 8, 1<<63), "record 501 (byte " + strconv.Itoa(at(500)) + "): offset -9223372036854775808"},
		{"time before the previous", put64(500, 0, uint64(499*time.Millisecond-1)), "record 501 (byte " + strconv.Itoa(at(500)) + "): time 498.999999ms is before the previous request's 499ms"},
		{"negative time", put64(0, 0, 1<<63), "record 1 (byte " + strconv.Itoa(at(0)) + "): time -9223372036854775808 ns"},
		{"flush with a size", put64(9, 16, 4096), "record 10 (byte " + strconv.Itoa(at(9)) + "): a flush with offset 0 and size 4096"},
		{"valid but altered offset", put64(500, 8, 12345), "check record after request 4096 (byte " + strconv.Itoa(at(traceCheckEvery)-traceRecLen) + "): the 4096 requests since the previous check record"},
		{"altered in the last block", put64(traceCheckEvery+50, 24, 99), "check record after request 4196"},
		{"request removed", func(b []byte) []byte { return append(b[:at(500)], b[at(501):]...) },
			"check record after request 4095 (byte " + strconv.Itoa(at(traceCheckEvery)-2*traceRecLen) + "): it counts 4096 requests, but 4095 were read"},
		{"altered header", func(b []byte) []byte { b[bytes.Index(b, []byte("hdd-7200"))] = 'x'; return b }, "check record after request 4096"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.edit(bytes.Clone(good))
			_, recs, err := readAll(b, true)
			if !errors.Is(err, ErrTraceCorrupt) {
				t.Fatalf("error %v, want ErrTraceCorrupt", err)
			}
			var te *TraceError
			if !errors.As(err, &te) {
				t.Fatalf("error %T, want *TraceError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q\nwant it to contain %q", err, tc.want)
			}
			// nothing of a damaged block is handed out, even with Partial
			if len(recs)%traceCheckEvery != 0 {
				t.Fatalf("%d requests handed out before the error: not whole checked blocks", len(recs))
			}
		})
	}
	t.Run("data after the end marker", func(t *testing.T) {
		_, _, err := readAll(append(bytes.Clone(good), 0), false)
		if !errors.Is(err, ErrTraceCorrupt) || !strings.Contains(err.Error(), "data after the end marker") {
			t.Fatalf("error %v", err)
		}
	})
}

// TestTraceTruncated: a trace that ends early is refused, or with Partial replays up
// to where it ends and says so.
func TestTraceTruncated(t *testing.T) {
	recs := testRecords(traceCheckEvery + 100)
	good := writeTrace(t, recs)
	for _, tc := range []struct {
		name     string
		cut      int // bytes kept
		whole    int // requests left whole
		wantText string
	}{
		{"no end marker", len(good) - traceRecLen, traceCheckEvery + 100, "the trace ends after 4196 requests without its end marker"},
		{"at a record boundary", recordAt(good, 4150), 4150, "the trace ends after 4150 requests without its end marker"},
		{"inside a record", recordAt(good, 4150) + 12, 4150, "record 4151 (byte " + strconv.Itoa(recordAt(good, 4150)) + "): the trace ends 12 bytes into this 34-byte record"},
		{"right after a check record", recordAt(good, traceCheckEvery), traceCheckEvery, "after 4096 requests"},
		{"inside the header", 15, 0, "header (byte 9): the file ends inside the header line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := good[:tc.cut]
			_, got, err := readAll(b, false)
			if !errors.Is(err, ErrTraceTruncated) || !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("error %v, want ErrTraceTruncated with %q", err, tc.wantText)
			}
			if want := tc.whole / traceCheckEvery * traceCheckEvery; len(got) != want {
				t.Fatalf("without Partial %d requests handed out, want the %d of checked blocks", len(got), want)
			}
			if tc.cut < 20 {
				return
			}
			tr, got, err := readAll(b, true)
			if !errors.Is(err, ErrTraceTruncated) || len(got) != tc.whole {
				t.Fatalf("with Partial: %d requests, error %v; want %d and ErrTraceTruncated", len(got), err, tc.whole)
			}
			if tr.Checked() || tr.Unchecked() != int64(tc.whole-tc.whole/traceCheckEvery*traceCheckEvery) {
				t.Fatalf("checked %v, unchecked %d", tr.Checked(), tr.Unchecked())
			}
			for i := range got {
				if got[i] != recs[i] {
					t.Fatalf("request %d: %+v, want %+v", i, got[i], recs[i])
				}
			}
			// Replay refuses it, or with Partial replays the whole requests and says where
			// the trace ends.
			m, _ := buildModel(mustRegistry(t), "hdd-7200")
			tr, _ = NewTraceReader(bytes.NewReader(b))
			if _, err := Replay(context.Background(), tr, m, ReplayOptions{}); !errors.Is(err, ErrTraceTruncated) {
				t.Fatalf("Replay: %v, want ErrTraceTruncated", err)
			}
			m, _ = buildModel(mustRegistry(t), "hdd-7200")
			tr, _ = NewTraceReader(bytes.NewReader(b))
			res, err := Replay(context.Background(), tr, m, ReplayOptions{Partial: true})
			if err != nil || res.Requests != int64(tc.whole) || !strings.Contains(res.Incomplete, tc.wantText) || res.Checked {
				t.Fatalf("partial replay: %d requests, incomplete %q, checked %v, error %v", res.Requests, res.Incomplete, res.Checked, err)
			}
		})
	}
}

// TestTraceFormat1: traces of the previous format (no check records) are still read;
// the reader says nothing in them is checked, and a cut inside a record is found.
func TestTraceFormat1(t *testing.T) {
	recs := testRecords(50)
	v2 := writeTrace(t, recs)
	v1 := append([]byte(traceMagicV1), v2[len(traceMagic):recordAt(v2, 0)]...)
	for _, r := range recs {
		var b [traceRecLen]byte
		binary.LittleEndian.PutUint64(b[0:], uint64(r.At))
		binary.LittleEndian.PutUint64(b[8:], uint64(r.Offset))
		binary.LittleEndian.PutUint64(b[16:], uint64(r.Size))
		binary.LittleEndian.PutUint64(b[24:], r.File)
		b[32] = byte(r.Op)
		if r.Direct {
			b[33] = 1
		}
		v1 = append(v1, b[:]...)
	}
	tr, got, err := readAll(v1, false)
	if err != nil || len(got) != len(recs) || tr.Format() != 1 || tr.Checked() || tr.Unchecked() != int64(len(recs)) {
		t.Fatalf("format 1: %d requests, format %d, checked %v, error %v", len(got), tr.Format(), tr.Checked(), err)
	}
	for i := range got {
		if got[i] != recs[i] {
			t.Fatalf("request %d: %+v, want %+v", i, got[i], recs[i])
		}
	}
	if _, _, err := readAll(v1[:len(v1)-5], false); !errors.Is(err, ErrTraceTruncated) || !strings.Contains(err.Error(), "record 50 ") {
		t.Fatalf("format 1 cut inside the last record: %v", err)
	}
	binary.LittleEndian.PutUint64(v1[recordAt(v2, 20)+16:], 1<<50)
	if _, _, err := readAll(v1, false); !errors.Is(err, ErrTraceCorrupt) || !strings.Contains(err.Error(), "record 21 ") {
		t.Fatalf("format 1 with a damaged size: %v", err)
	}
}

func TestTraceNotATrace(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"empty", "", "not a tierbench trace"},
		{"text", "hello world, this is not a trace\n", "not a tierbench trace"},
		{"newer format", "TBTRACE9\n{}\n", `trace format "TBTRACE9" is not one this tierbench reads`},
		{"header not JSON", "TBTRACE2\nnot json\n", "header (byte 9): not the JSON header"},
		{"header without end", "TBTRACE2\n" + strings.Repeat("x", maxTraceHeader+10), "no end of line within 64 KiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewTraceReader(strings.NewReader(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// slowModel completes every request 2^62 ns after its submission.
type slowModel struct{ *nullModel }

func (slowModel) Submit(at time.Duration, _ device.Request) time.Duration { return at + 1<<62 }

// TestReplayLatencySumOverflow: a device that falls 146 years behind on each request
// cannot have its latencies summed in int64 nanoseconds; Replay says so rather than
// reporting a negative I/O time.
func TestReplayLatencySumOverflow(t *testing.T) {
	tr, err := NewTraceReader(bytes.NewReader(writeTrace(t, testRecords(3))))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Replay(context.Background(), tr, slowModel{&nullModel{}}, ReplayOptions{})
	if err == nil || !strings.Contains(err.Error(), "request 2: the sum of latencies passes 292 years") {
		t.Fatalf("error %v, I/O time %v: want the overflow named at request 2", err, res.IOTime)
	}
}

func TestReplayCancelled(t *testing.T) {
	tr, err := NewTraceReader(bytes.NewReader(writeTrace(t, testRecords(10))))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, _ := buildModel(mustRegistry(t), "hdd-7200")
	if _, err := Replay(ctx, tr, m, ReplayOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

// TestReplayDamagedThroughPageCache: 40 damaged bytes replayed through a page cache
// used to report exabytes and grow without bound; now the record at fault is named.
func TestReplayDamagedThroughPageCache(t *testing.T) {
	b := writeTrace(t, testRecords(1000))
	copy(b[recordAt(b, 500)+16:], bytes.Repeat([]byte{0x7f}, 40)) // size, file, op, ...
	path := filepath.Join(t.TempDir(), "bad.trace")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReplayFile(context.Background(), path, "pagecache(hdd-7200,size=64MiB)", ReplayOptions{})
	want := "trace " + path + ": record 501 (byte " + strconv.Itoa(recordAt(b, 500)) + "): operation 127"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v\nwant one containing %q", err, want)
	}
}

func mustRegistry(t testing.TB) *device.Registry {
	t.Helper()
	r, err := device.Load()
	if err != nil {
		t.Fatal(err)
	}
	return r
}
