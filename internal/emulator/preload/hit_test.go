//go:build linux && cgo

package preload

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestCachedReadsDoNotAsk: a buffered read whose pages the server marked as cached
// is served without a slot and reported as a hit record carrying the read; a read
// with a page unmarked, a direct read, a probe's read and any read after the device
// was withdrawn ask.
func TestCachedReadsDoNotAsk(t *testing.T) {
	const page, chunk = 4096, 1 << 20
	r, f, file := hitRing(t, 2*chunk)
	// the file's chunk 0 at device chunk 3 (pages 768-1023), chunk 1 at 1 (256-511)
	if !r.Publish(0, file, 0, 3) || !r.Publish(0, file, 1, 1) {
		t.Fatal("publish refused in an empty map")
	}
	if r.Publish(0, file, 0, 2) {
		t.Error("a chunk published again elsewhere was accepted")
	}
	for _, p := range []int64{768, 769, 1023, 256} {
		r.SetResident(0, p, true)
	}
	stop := make(chan struct{})
	done := serve(r, 100*time.Microsecond, stop)
	c := attach(t, r)
	fd := int(f.Fd())
	buf := make([]byte, 8192)
	read := func(off int64, fl IOFlags) {
		t.Helper()
		if n, err := c.Pread(0, fd, buf, off, fl); n != len(buf) || err != nil {
			t.Fatalf("read at %d: %d, %v", off, n, err)
		}
	}
	read(0, IOFlags{})             // pages 768 and 769: a hit
	read(chunk-4096, IOFlags{})    // 1023 and, in the next chunk, 256: a hit across chunks
	read(4096, IOFlags{})          // 769 and 770, not marked: asks
	read(0, IOFlags{Direct: true}) // O_DIRECT: the device's, asks
	r.SetResident(0, 769, false)
	read(0, IOFlags{}) // 769 gone: asks
	r.SetResident(0, 769, true)
	r.Unpublish(0)
	read(0, IOFlags{}) // withdrawn: asks
	if r.Resident(0, 768) {
		t.Error("Unpublish left page 768 marked")
	}
	close(stop)
	seen := <-done
	if len(seen.reqs) != 4 {
		t.Errorf("%d requests asked, want 4: %+v", len(seen.reqs), seen.reqs)
	}
	hits := seen.hits()
	if len(hits) != 2 {
		t.Fatalf("%d hit records, want 2: %+v", len(hits), seen.comps)
	}
	want := []HitRead{{File: file, Off: 0, FileSize: 2 * chunk}, {File: file, Off: chunk - 4096, FileSize: 2 * chunk}}
	for i, h := range hits {
		got := h.HitRead
		if got.File != want[i].File || got.Off != want[i].Off || got.FileSize != want[i].FileSize || h.Size != 8192 || h.Op != 0 {
			t.Errorf("hit %d: %+v size %d op %d, want %+v of 8192 bytes", i, got, h.Size, h.Op, want[i])
		}
		if got.Arrive <= 0 || h.Latency <= 0 {
			t.Errorf("hit %d: arrival %d, latency %v", i, got.Arrive, h.Latency)
		}
	}
}

// TestPublishFull: a map with no room near a chunk's place refuses it and counts it.
func TestPublishFull(t *testing.T) {
	dir := t.TempDir()
	r, err := Create(dir, Config{Devices: []Device{{Dir: dir, Pages: 64, Page: 4096}}, Chunk: 1 << 20, MapEntries: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := range int64(64) {
		if !r.Publish(0, 7, i, i) {
			t.Fatalf("chunk %d refused with %d of 64 entries taken", i, i)
		}
	}
	if r.Publish(0, 7, 64, 64) || r.Unpublished() != 1 {
		t.Errorf("a 65th chunk in 64 entries: accepted, or not counted (%d)", r.Unpublished())
	}
	if _, err := Create(dir, Config{Devices: []Device{{Dir: dir, Pages: 64}}}); err == nil {
		t.Error("a bitmap without a page size or chunk was accepted")
	}
}

// TestCachedWritesDoNotAsk: a buffered write goes without asking when every page it
// covers in part is marked and the device's write budget has its pages, which it
// takes; otherwise it asks.
func TestCachedWritesDoNotAsk(t *testing.T) {
	const page, chunk = 4096, 1 << 20
	r, f, file := hitRing(t, chunk)
	r.Publish(0, file, 0, 0) // file chunk 0 at device chunk 0
	r.Publish(0, file, 1, 1) // and chunk 1, past its end, at 1
	r.SetWriteBudget(0, 3)
	stop := make(chan struct{})
	done := serve(r, 100*time.Microsecond, stop)
	c := attach(t, r)
	fd := int(f.Fd())
	write := func(off int64, n int, fl IOFlags) {
		t.Helper()
		if _, err := c.Pwrite(0, fd, make([]byte, n), off, fl); err != nil {
			t.Fatalf("write at %d: %v", off, err)
		}
	}
	write(0, 8192, IOFlags{}) // pages 0 and 1 whole: no page needed, 2 of the budget's 3
	if got := r.WriteBudget(0); got != 1 {
		t.Errorf("budget after a write of 2 pages: %d, want 1", got)
	}
	write(2*page+100, 100, IOFlags{}) // part of page 2, not marked: asks
	r.SetResident(0, 2, true)
	write(2*page+100, 100, IOFlags{}) // part of page 2, marked: 1 page of the budget
	write(3*page, page, IOFlags{})    // a whole page, but the budget is spent: asks
	r.SetWriteBudget(0, 1)
	write(chunk+10, 100, IOFlags{}) // part of page 256, past the file's end (1 MiB): no page needed
	r.SetWriteBudget(0, 10)
	write(4*page, page, IOFlags{Direct: true}) // O_DIRECT: asks
	close(stop)
	seen := <-done
	if len(seen.reqs) != 3 {
		t.Errorf("%d writes asked, want 3: %+v", len(seen.reqs), seen.reqs)
	}
	hits := seen.hits()
	if len(hits) != 3 || hits[0].Op != 1 || hits[0].Size != 8192 || hits[1].HitRead.Off != 2*page+100 || hits[1].Size != 100 ||
		hits[2].HitRead.Off != chunk+10 || hits[2].HitRead.FileSize != chunk {
		t.Errorf("hit records %+v, want the 8 KiB write at 0, the 100 bytes at %d, the append at %d to a file of %d bytes", hits, 2*page+100, chunk+10, chunk)
	}
}

// hitRing makes a ring of one device with a resident-page bitmap of 4096 pages of 4
// KiB in 1 MiB chunks, and a file of size bytes on it, opened read-write; it returns
// the ring, the open file and the file's identity as the clients compute it.
func hitRing(t *testing.T, size int64) (*Ring, *os.File, uint64) {
	t.Helper()
	dir := t.TempDir()
	r, err := Create(dir, Config{Devices: []Device{{Dir: dir, Pages: 4096, Page: 4096}}, Chunk: 1 << 20, MapEntries: 64})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	path := filepath.Join(dir, "data")
	if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return r, f, uint64(st.Dev)<<32 ^ st.Ino
}

// hits are the hit records among the completions served saw.
func (s served) hits() []Completion {
	var out []Completion
	for _, cp := range s.comps {
		if cp.Hit {
			out = append(out, cp)
		}
	}
	return out
}
