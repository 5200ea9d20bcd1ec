package device

import (
	"testing"
	"time"
)

// pagecache(tssd, size=16KiB): 4 pages of 4 KiB; copy 4.096 GB/s: a page in 1 us.
// tssd alone: a 4K read takes 80 us, a 4K write 230 us (see ssd_test.go).
const pcSpec = "pagecache(tssd,size=16KiB,copy=4.096GB/s)"

func TestPageCache(t *testing.T) {
	r := testRegistry(t)
	t.Run("hit, miss and O_DIRECT", func(t *testing.T) {
		m := build(t, r, pcSpec).(*PageCache)
		runSteps(t, m, []step{
			{0, rd(0, 4096), 81 * us},         // miss: 80 + 1 copy
			{100 * us, rd(0, 4096), 101 * us}, // hit: 1 copy
			{200 * us, Request{Op: OpRead, Offset: 0, Size: 4096, Direct: true}, 280 * us}, // device: 200 + 80
		})
		if st := m.Stats(); st.Hits != 1 || st.Misses != 1 {
			t.Errorf("hits %d misses %d, want 1 and 1", st.Hits, st.Misses)
		}
		if st := m.inner.Stats(); st.Reads != 2 {
			t.Errorf("device reads %d, want 2 (the miss and the O_DIRECT read)", st.Reads)
		}
	})
	t.Run("LRU eviction", func(t *testing.T) {
		m := build(t, r, pcSpec).(*PageCache)
		for p := int64(0); p < 5; p++ { // page 0 is the least recent when page 4 comes
			m.Submit(0, rd(p*4096, 4096))
		}
		m.Submit(ms, rd(4*4096, 4096))
		m.Submit(ms, rd(0, 4096))
		if st := m.Stats(); st.Misses != 6 || st.Hits != 1 {
			t.Errorf("misses %d hits %d, want 6 (page 0 evicted) and 1", st.Misses, st.Hits)
		}
	})
	t.Run("dirty pages written on fsync", func(t *testing.T) {
		m := build(t, r, pcSpec).(*PageCache)
		runSteps(t, m, []step{
			// Whole page: no read; 1 us copy.
			{0, Request{Op: OpWrite, Offset: 0, Size: 4096, File: 7}, 1 * us},
			// fsync(7) at 10: device write 10-20 interface, 20-30 controller, 30-240
			// program; device flush after the program: 240 + 20.
			{10 * us, fl(7), 260 * us},
			// Nothing dirty: only the device flush: 300 + 20.
			{300 * us, fl(7), 320 * us},
		})
		if st := m.inner.Stats(); st.Writes != 1 || st.Flushes != 2 {
			t.Errorf("device writes %d flushes %d, want 1 and 2", st.Writes, st.Flushes)
		}
	})
	t.Run("fsync of one file leaves others dirty", func(t *testing.T) {
		m := build(t, r, pcSpec).(*PageCache)
		m.Submit(0, Request{Op: OpWrite, Offset: 0, Size: 4096, File: 7})
		m.Submit(0, Request{Op: OpWrite, Offset: 4096, Size: 4096, File: 8})
		m.Submit(0, fl(7))
		if got := m.DirtyPages(); got != 1 {
			t.Errorf("dirty pages after fsync(7): %d, want 1", got)
		}
		m.Submit(0, fl(0))
		if got := m.DirtyPages(); got != 0 {
			t.Errorf("dirty pages after sync: %d, want 0", got)
		}
	})
	t.Run("writer waits above dirty_ratio", func(t *testing.T) {
		m := build(t, r, "pagecache(tssd,size=16KiB,copy=4.096GB/s,dirty_ratio=0.5)") // 2 dirty pages
		runSteps(t, m, []step{
			{0, wr(0, 4096), 1 * us},
			{0, wr(4096, 4096), 1 * us},
			// Third dirty page: page 0 (oldest) is written back first: device write
			// 0-10 interface, 10-20 controller, 20-230 program; + 1 us copy.
			{0, wr(8192, 4096), 231 * us},
		})
		if got := m.(*PageCache).DirtyPages(); got != 2 {
			t.Errorf("dirty pages %d, want 2", got)
		}
	})
	t.Run("partial write of an uncached page reads it first", func(t *testing.T) {
		m := build(t, r, pcSpec)
		// Read 80 (device) then copy of 512 B: 512 / 4.096e9 s = 125 ns.
		runSteps(t, m, []step{{0, wr(100, 512), 80*us + 125}})
	})
	t.Run("a request larger than the cache", func(t *testing.T) {
		m := build(t, r, pcSpec).(*PageCache) // 4 pages
		// The LRU's node slice never shrinks: its length is the most pages ever held.
		highWater := func() int { return len(m.cache.nodes) }
		// 1 MiB read: 256 misses, one device read, and the cache keeps the last 4 pages.
		m.Submit(0, rd(0, 1<<20))
		if st := m.inner.Stats(); st.Reads != 1 || st.ReadBytes != 1<<20 {
			t.Errorf("device reads %d of %d bytes, want 1 of %d", st.Reads, st.ReadBytes, 1<<20)
		}
		if got := highWater(); got > 4 {
			t.Errorf("the cache held %d pages during the read, more than its 4", got)
		}
		// 1 MiB write of whole pages: each page is dirtied, then evicted and written
		// back as the next comes in; then the writer cleans down to the dirty limit
		// (20% of 4 pages, at least 1 page), so 255 of the 256 pages are written back.
		m.Submit(ms, wr(0, 1<<20))
		if got := highWater(); got > 4 {
			t.Errorf("the cache held %d pages during the write, more than its 4", got)
		}
		if got := m.DirtyPages(); got != 1 {
			t.Errorf("dirty pages %d, want 1", got)
		}
		if st := m.Stats(); st.Writebacks != 255 {
			t.Errorf("writebacks %d, want 255 (every page but the one left dirty)", st.Writebacks)
		}
	})
	t.Run("O_DIRECT write drops the cached page", func(t *testing.T) {
		m := build(t, r, pcSpec).(*PageCache)
		m.Submit(0, rd(0, 4096))
		m.Submit(ms, Request{Op: OpWrite, Offset: 0, Size: 4096, Direct: true})
		m.Submit(2*ms, rd(0, 4096))
		if st := m.Stats(); st.Misses != 2 {
			t.Errorf("misses %d, want 2", st.Misses)
		}
	})
}

// ssd-cache(tslow, ssd=tssd): tslow reads 4K in 1000 + 10 + 10 us; tssd as above.
func TestSSDCache(t *testing.T) {
	r := testRegistry(t)
	const ro = "ssd-cache(tslow,ssd=tssd,size=8KiB,block=4KiB)" // 2 blocks
	t.Run("readonly admits on the second read", func(t *testing.T) {
		m := build(t, r, ro).(*SSDCache)
		runSteps(t, m, []step{
			{0, rd(0, 4096), 1020 * us},         // miss: tslow
			{2000 * us, rd(0, 4096), 3020 * us}, // miss again: tslow; now admitted
			// Hit: tssd read 4000-4010 controller; the fill (a write once the second
			// miss was read, at 3020) held die 0 until 3250; die 4010-4070; interface
			// 4070-4080.
			{4000 * us, rd(0, 4096), 4080 * us},
		})
		if st := m.Stats(); st.Hits != 1 || st.Misses != 2 {
			t.Errorf("hits %d misses %d, want 1 and 2", st.Hits, st.Misses)
		}
	})
	t.Run("the copy-in waits for the backing device's data", func(t *testing.T) {
		m := build(t, r, "ssd-cache(tslow,ssd=tssd,size=8KiB,block=4KiB,admit_reads=1)").(*SSDCache)
		runSteps(t, m, []step{
			// Miss, admitted: tslow 0-1020; the copy-in writes tssd from 1020:
			// interface 1020-1030, controller 1030-1040, die 0 1040-1250.
			{0, rd(0, 4096), 1020 * us},
			// Hit: controller 1100-1110; die 0 is programming until 1250, then reads
			// 1250-1310; interface 1310-1320.
			{1100 * us, rd(0, 4096), 1320 * us},
		})
	})
	t.Run("a hit is not held up by a later copy-in", func(t *testing.T) {
		m := build(t, r, "ssd-cache(tslow,ssd=tssd,size=8KiB,block=4KiB,admit_reads=1)").(*SSDCache)
		runSteps(t, m, []step{
			// Block 2 admitted: read from tslow 0-1020; its copy-in waits for a request.
			{0, rd(2*4096, 4096), 1020 * us},
			// Block 0 admitted: block 2's copy-in goes first, at 1020 (tssd interface
			// 1020-1030, controller 1030-1040, die 0 1040-1250); tslow reads block 0
			// 2000-3020, and its copy-in waits for a request after 3020.
			{2000 * us, rd(0, 4096), 3020 * us},
			// Block 2 hit at 2100, before block 0's data is in: controller 2100-2110, die
			// 0 2110-2170, interface 2170-2180; not behind a copy-in dated 3020.
			{2100 * us, rd(2*4096, 4096), 2180 * us},
		})
		if st := m.ssd.Stats(); st.Writes != 1 {
			t.Errorf("SSD writes %d, want 1 (block 0's copy-in not sent yet)", st.Writes)
		}
	})
	t.Run("a hit over blocks side by side on the SSD is one request", func(t *testing.T) {
		m := build(t, r, "ssd-cache(tslow,ssd=tssd,size=64KiB,block=4KiB)").(*SSDCache)
		runSteps(t, m, []step{
			// 16 KiB miss: tslow's one die reads four pages, 1010 us each, 0-4040,
			// then its interface 4040-4080.
			{0, rd(0, 16384), 4080 * us},
			// Again: admitted, read 5000-9080; the four blocks go to slots 0-3 as one
			// 16 KiB write from 9080 (interface 9080-9120, controller 9120-9130, four
			// dies 9130-9340).
			{5000 * us, rd(0, 16384), 9080 * us},
			// Hit: one request: controller 10000-10010, dies 0-3 in parallel
			// 10010-10070, interface 16 KiB 10070-10110.
			{10000 * us, rd(0, 16384), 10110 * us},
		})
		if st := m.ssd.Stats(); st.Reads != 1 || st.Writes != 1 || st.WriteBytes != 16384 {
			t.Errorf("SSD reads %d, writes %d of %d bytes; want 1 read, and 1 write of 16384 (one copy-in)", st.Reads, st.Writes, st.WriteBytes)
		}
		if st := m.Stats(); st.Hits != 4 || st.Misses != 8 {
			t.Errorf("hits %d misses %d (blocks), want 4 and 8", st.Hits, st.Misses)
		}
	})
	t.Run("blocks lie on the SSD in the order they came in", func(t *testing.T) {
		for _, c := range []struct {
			order []int64
			reads int64
		}{
			{[]int64{0, 1}, 1}, // slots 0 and 1: side by side
			{[]int64{1, 0}, 2}, // block 0 in slot 1, block 1 in slot 0
		} {
			m := build(t, r, "ssd-cache(tslow,ssd=tssd,size=64KiB,block=4KiB,admit_reads=1)").(*SSDCache)
			for i, b := range c.order {
				m.Submit(time.Duration(i)*10*ms, rd(b*4096, 4096))
			}
			m.Submit(time.Second, rd(0, 8192))
			if got := m.ssd.Stats().Reads; got != c.reads {
				t.Errorf("admitted in order %v: an 8 KiB hit took %d SSD reads, want %d", c.order, got, c.reads)
			}
		}
	})
	t.Run("LRU eviction", func(t *testing.T) {
		m := build(t, r, ro).(*SSDCache)
		for _, b := range []int64{0, 0, 1, 1, 2, 2} {
			m.Submit(0, rd(b*4096, 4096))
		}
		if m.Cached(0) || !m.Cached(4096) || !m.Cached(8192) {
			t.Errorf("cached 0,1,2 = %v,%v,%v; want block 0 evicted", m.Cached(0), m.Cached(4096), m.Cached(8192))
		}
	})
	t.Run("readonly: writes go to the disk and drop the copy", func(t *testing.T) {
		m := build(t, r, ro).(*SSDCache)
		m.Submit(0, rd(0, 4096))
		m.Submit(0, rd(0, 4096))
		m.Submit(0, wr(0, 4096))
		if m.Cached(0) {
			t.Error("block 0 still cached after a write")
		}
		if st := m.inner.Stats(); st.Writes != 1 {
			t.Errorf("disk writes %d, want 1", st.Writes)
		}
	})
	t.Run("writeback absorbs writes and cleans above the threshold", func(t *testing.T) {
		m := build(t, r, "ssd-cache(tslow,ssd=tssd,size=40KiB,mode=writeback,dirty_threshold=0.2)").(*SSDCache)
		// A whole-block write goes to tssd: 230 us (as in ssd_test.go).
		runSteps(t, m, []step{{0, wr(0, 4096), 230 * us}})
		// 10 blocks, threshold 0.2: 2 may be dirty; the third write cleans one.
		m.Submit(ms, wr(4096, 4096))
		m.Submit(ms, wr(8192, 4096))
		if st := m.Stats(); st.Writebacks != 1 {
			t.Errorf("writebacks %d, want 1", st.Writebacks)
		}
		if st := m.inner.Stats(); st.Writes != 1 {
			t.Errorf("disk writes %d, want 1 (the cleaned block)", st.Writes)
		}
		// A partial write to an uncached block goes around the cache.
		m.Submit(2*ms, wr(20*4096+100, 512))
		if m.Cached(20 * 4096) {
			t.Error("partial write was cached")
		}
		// A flush reaches both devices.
		m.Submit(3*ms, fl(0))
		if a, b := m.inner.Stats().Flushes, m.ssd.Stats().Flushes; a != 1 || b != 1 {
			t.Errorf("flushes disk %d ssd %d, want 1 and 1", a, b)
		}
	})
}

// TestPageCacheAppend: a partial write to a page past the file's old end reads
// nothing from the device (the kernel zero-fills it); the page holding the old end
// is read as any partial write's.
func TestPageCacheAppend(t *testing.T) {
	r := testRegistry(t)
	m := build(t, r, pcSpec).(*PageCache)
	// a 100-byte append at 5000 to a file of 5000 bytes: page 1 holds the old end
	// (bytes 4096-4999 are data), so it is read; nothing else
	m.Submit(0, Request{Op: OpWrite, Offset: 5000, Size: 100, File: 1, Unwritten: 100})
	// a frame of 4120 bytes appended at 8192, the file's end: pages 2 and 3, both
	// wholly past the old end, partial page 3 included: no read
	m.Submit(ms, Request{Op: OpWrite, Offset: 8192, Size: 4120, File: 1, Unwritten: 4120})
	if st := m.inner.Stats(); st.Reads != 1 {
		t.Errorf("device reads %d, want 1 (the page with the old end only)", st.Reads)
	}
	// the same frame over existing data (nothing unwritten) reads its partial page
	m.Submit(2*ms, Request{Op: OpWrite, Offset: 16384 + 100, Size: 4096, File: 1})
	if st := m.inner.Stats(); st.Reads != 2 || st.ReadBytes != 4096+2*4096 {
		t.Errorf("device reads %d of %d bytes, want 2 of 12288 (then the write's two partial pages, in one request)", st.Reads, st.ReadBytes)
	}
}
