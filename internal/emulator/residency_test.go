//go:build linux

package emulator

import (
	"testing"
	"time"

	"tierbench/internal/device"
	"tierbench/internal/emulator/preload"
)

// TestPreloadFastHits serves a page cache over an HDD on the preload ring: a read of
// pages the model holds is served by the client and counted as a fast hit, with the
// model's hit and the device's read counted as any other; a read of a page the model
// does not hold, a direct read, and a read after a direct write dropped the page ask
// the server, and the model counts them as it would.
func TestPreloadFastHits(t *testing.T) {
	e, c, fd := preloadOn(t, "pagecache(hdd-7200,size=64MiB)", 4<<20)
	buf := make([]byte, 8192)
	stats := func() DeviceStats { return firstStats(t, e) }
	read := func(off int64, fl preload.IOFlags) {
		t.Helper()
		if _, err := c.Pread(0, fd, buf, off, fl); err != nil {
			t.Fatal(err)
		}
	}
	read(0, preload.IOFlags{}) // a miss: the HDD's milliseconds
	if st := stats(); st.FastHits != 0 || st.Model.Misses != 2 {
		t.Fatalf("after the first read: fast hits %d, model misses %d; want 0 and 2 (two pages)", st.FastHits, st.Model.Misses)
	}
	// The pages are marked once the server has seen their read complete; until then a
	// read asks (and is a hit in the model all the same).
	deadline := time.Now().Add(30 * time.Second)
	for stats().FastHits == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no read of two cached pages was served as a fast hit in 30 s")
		}
		read(0, preload.IOFlags{})
		time.Sleep(time.Millisecond)
	}
	before := stats()
	for range 10 {
		read(0, preload.IOFlags{})
	}
	after := stats()
	if got := after.FastHits - before.FastHits; got != 10 {
		t.Errorf("10 reads of cached pages: %d fast hits", got)
	}
	if got := after.Model.Hits - before.Model.Hits; got != 20 {
		t.Errorf("10 fast hits of 2 pages: the model counted %d page hits, want 20", got)
	}
	if got := after.Reads - before.Reads; got != 10 {
		t.Errorf("10 fast hits: %d reads counted, want 10", got)
	}
	if after.FastHitMisses != 0 {
		t.Errorf("%d fast hits found evicted pages in a cache 16 times the file", after.FastHitMisses)
	}
	read(0, preload.IOFlags{Direct: true}) // the device's own: asks, the model sends it on
	if _, err := c.Pwrite(0, fd, buf, 0, preload.IOFlags{Direct: true}); err != nil {
		t.Fatal(err)
	}
	read(0, preload.IOFlags{}) // the direct write dropped both pages: a miss, asked
	last := stats()
	if last.FastHits != after.FastHits {
		t.Errorf("a direct read, or a read of pages a direct write dropped, was served as a fast hit")
	}
	if got := last.Model.Misses - after.Model.Misses; got != 2 {
		t.Errorf("the read after the direct write: the model counted %d page misses, want 2", got)
	}
	if got := last.Members[0].Stats.Reads - after.Members[0].Stats.Reads; got != 2 {
		t.Errorf("the HDD read %d times after the fast hits, want 2 (the direct read and the miss)", got)
	}
}

// TestResidencySettles: a page comes in marked only once its data is there, a page
// that comes in again later waits for its new time, and a page that left is not
// marked by a stale entry.
func TestResidencySettles(t *testing.T) {
	reg, err := device.Load()
	if err != nil {
		t.Fatal(err)
	}
	m, err := reg.Build("pagecache(hdd-7200,size=1MiB)")
	if err != nil {
		t.Fatal(err)
	}
	pc := m.(*device.PageCache)
	pub := &fakePublisher{marked: map[int64]bool{}}
	r := newResidency(pub, 0, pc)
	done := pc.Submit(0, device.Request{Op: device.OpRead, Offset: 0, Size: 4096, File: 1})
	// its data is there when the HDD's read completes: before the copy to the reader
	ready := r.settle(0)
	if pub.marked[0] || ready < done-time.Microsecond || ready >= done {
		t.Fatalf("at 0: marked %v, next page there in %v; want unmarked and the HDD's read (the request took %v)", pub.marked[0], ready, done)
	}
	if r.settle(ready - 1); pub.marked[0] {
		t.Fatal("page 0 marked before its read completed")
	}
	if r.settle(ready); !pub.marked[0] {
		t.Fatal("page 0 not marked when its read completed")
	}
	// page 1 comes in, then leaves (a direct write) before its time: never marked
	d1 := pc.Submit(done, device.Request{Op: device.OpRead, Offset: 4096, Size: 4096, File: 1})
	pc.Submit(done, device.Request{Op: device.OpWrite, Offset: 4096, Size: 4096, File: 1, Direct: true})
	if r.settle(d1 + time.Second); pub.marked[1] {
		t.Error("page 1 marked after it left the cache")
	}
	if pub.unpublished != 1 {
		t.Errorf("%d unpublishes, want 1 (the start)", pub.unpublished)
	}
}

type fakePublisher struct {
	marked      map[int64]bool
	unpublished int
}

func (p *fakePublisher) Publish(int, uint64, int64, int64) bool { return true }
func (p *fakePublisher) Unpublish(int)                          { p.unpublished++ }
func (p *fakePublisher) SetResident(_ int, page int64, on bool) { p.marked[page] = on }
func (p *fakePublisher) SetWriteBudget(int, int64)              {}

// TestPreloadFastWrites: buffered writes of whole pages go without asking while the
// page cache model's dirty limit has room, and the model gets them: an fsync after
// them writes their pages to the device.
func TestPreloadFastWrites(t *testing.T) {
	// 1 MiB of cache, dirty_ratio 0.5: 128 pages may be dirty
	e, c, fd := preloadOn(t, "pagecache(hdd-7200,size=1MiB,dirty_ratio=0.5)", 4<<20)
	stats := func() DeviceStats { return firstStats(t, e) }
	buf := make([]byte, 8192)
	// the first write lays the file out (its chunks are not published before)
	if _, err := c.Pwrite(0, fd, buf, 0, preload.IOFlags{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for i := int64(1); stats().FastHits == 0; i++ {
		if time.Now().After(deadline) {
			t.Fatal("no write of whole pages went without asking in 30 s")
		}
		if _, err := c.Pwrite(0, fd, buf, i%8*8192, preload.IOFlags{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	for i := range int64(8) {
		if _, err := c.Pwrite(0, fd, buf, i*8192, preload.IOFlags{}); err != nil {
			t.Fatal(err)
		}
	}
	before := stats()
	if err := c.Fdatasync(0, fd, preload.IOFlags{}); err != nil {
		t.Fatal(err)
	}
	after := stats()
	if before.Model.Writebacks != 0 || after.Model.Writebacks != 16 {
		t.Errorf("writebacks %d before the fsync, %d after; want 0 and the 16 dirty pages", before.Model.Writebacks, after.Model.Writebacks)
	}
	if before.FastHitMisses != 0 {
		t.Errorf("%d fast writes the model would have made wait, in a cache whose dirty limit they stay under", before.FastHitMisses)
	}
}

// TestPreloadAppendReadsNothing: a partial write past a file's end makes the page
// cache model read nothing from its device (the kernel zero-fills such a page), while
// one inside the file reads its page first.
func TestPreloadAppendReadsNothing(t *testing.T) {
	const span = 1 << 20
	e, c, fd := preloadOn(t, "pagecache(hdd-7200,size=64MiB)", span)
	disk := func() int64 { return firstStats(t, e).Members[0].Stats.Reads }
	buf := make([]byte, 100)
	for i := range int64(3) { // three 100-byte appends: the first page past the end, then into it
		if _, err := c.Pwrite(0, fd, buf, span+i*100, preload.IOFlags{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := disk(); got != 0 {
		t.Errorf("appends read the disk %d times, want 0", got)
	}
	if _, err := c.Pwrite(0, fd, buf, 10, preload.IOFlags{}); err != nil {
		t.Fatal(err)
	}
	if got := disk(); got != 1 {
		t.Errorf("a partial write inside the file: the disk read %d times, want 1", got)
	}
}

// firstStats is the counters of e's first device.
func firstStats(t *testing.T, e *Emulator) DeviceStats {
	t.Helper()
	st, err := e.Stats()
	if err != nil {
		t.Fatal(err)
	}
	return st[0]
}
