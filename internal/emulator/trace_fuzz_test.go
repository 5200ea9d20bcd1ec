package emulator

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"tierbench/internal/device"
)

// FuzzTraceReader feeds arbitrary bytes to the trace reader and replays whatever it
// accepts through a small page cache over a disk: no panic, an error that is a
// *TraceError (or the named overflow), bounded allocation whatever the input claims, and
// a page cache that never holds more than its size. The default test run executes the
// seeds only; `go test -fuzz FuzzTraceReader ./internal/emulator` explores.
func FuzzTraceReader(f *testing.F) {
	// Small seeds keep the mutator fast; TestTraceDamage covers the blocks of 4096.
	small := writeTrace(f, testRecords(5))
	f.Add(small)
	f.Add(small[:len(small)-traceRecLen])             // no end marker
	f.Add(small[:len(small)-7])                       // cut inside the end marker
	f.Add(append(bytes.Clone(small), 0))              // data after the end marker
	f.Add([]byte(traceMagicV1 + "{}\n"))              // format 1, no requests
	f.Add([]byte(traceMagic + "{}\n"))                // format 2, no end marker
	f.Add([]byte("TBTRACE2\n{\"device\":\"d\"}\nxx")) // a partial record
	f.Add([]byte("not a trace"))
	big := bytes.Clone(small)
	copy(big[recordAt(big, 2)+16:], bytes.Repeat([]byte{0x7f}, 40)) // TestReplayDamagedThroughPageCache's damage
	f.Add(big)
	v1 := append([]byte(traceMagicV1), small[len(traceMagic):recordAt(small, 5)]...)
	f.Add(v1) // format 1 holding the format 2 requests

	reg, err := device.Load()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		tr, err := NewTraceReader(bytes.NewReader(data))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		m, err := reg.Build("pagecache(hdd-7200,size=64KiB)")
		if err != nil {
			t.Fatal(err)
		}
		res, err := Replay(context.Background(), tr, m, ReplayOptions{Partial: true})
		runtime.ReadMemStats(&after)
		// The reader holds one block (4096 requests), the cache 16 pages: a few MiB at
		// most, whatever sizes, offsets or counts the bytes claim.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
			t.Fatalf("reading and replaying %d bytes allocated %d bytes", len(data), alloc)
		}
		pc := m.(*device.PageCache)
		if pc.CachedPages() > pc.SizePages() {
			t.Fatalf("page cache holds %d pages, more than its %d", pc.CachedPages(), pc.SizePages())
		}
		if err != nil {
			var te *TraceError
			if !errors.As(err, &te) && !strings.Contains(err.Error(), "the sum of latencies passes") {
				t.Fatalf("error %T %v: want a *TraceError", err, err)
			}
			return
		}
		if max := int64(len(data)) / traceRecLen; res.Requests > max {
			t.Fatalf("%d requests from %d bytes", res.Requests, len(data))
		}
		st := res.Model
		if res.IOTime < 0 || res.Busy < 0 || res.Span < 0 || st.ReadBytes < 0 || st.WriteBytes < 0 ||
			st.ReadBytes+st.WriteBytes > res.Requests*MaxTraceRequest || st.Reads+st.Writes+st.Flushes != res.Requests {
			t.Fatalf("implausible replay of %d requests: %+v", res.Requests, res)
		}
	})
}
