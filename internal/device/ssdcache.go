package device

import (
	"math"
	"time"
)

// SSDCache is an SSD of a given size caching a slower device (docs/devices.md, "Caches
// and tiers"), in blocks of block_kib, LRU eviction.
//
// mode=readonly, as Adaptec MaxIQ: a block is copied to the SSD when it has been read
// admit_reads times while not cached (the counts live in a ghost list as long as the
// cache, so cold blocks are forgotten); reads of cached blocks go to the SSD; every write
// goes to the backing device and drops the cached copy.
//
// mode=writeback, as dm-cache, bcache or flashcache: writes go to the SSD and the block
// is dirty; when dirty blocks exceed dirty_threshold of the cache the oldest-dirtied are
// written back (an SSD read and a device write) without delaying the writer. A partial
// write to an uncached block goes around the cache (no sub-block state is kept). Reads
// admit blocks as in readonly mode.
//
// In both modes a request of seq_cutoff_mib or more bypasses the cache (bcache's
// sequential_cutoff). Background work (fills, write-backs) is submitted at the time of
// the request that caused it, so it occupies the devices' queues but never delays that
// request. A flush flushes the backing device, and the SSD in writeback mode.
type SSDCache struct {
	counters
	name       string
	power      Power
	ssd, inner Model

	block, blocks, cutoff int64
	admit                 int
	writeback             bool
	dirtyLimit            int64

	cache *lru[cacheBlock]
	ghost *lru[int]   // read counts of uncached blocks
	dirty *lru[int64] // dirty blocks in the order dirtied -> slot
	free  []int64     // SSD slots given back, used from the end
	next  int64       // slots below next have been handed out
}

type cacheBlock struct {
	slot  int64
	dirty bool
}

func ssdCacheClass() *class {
	return &class{
		name:      "ssd-cache",
		help:      "an SSD caching a slower device: readonly (MaxIQ) or writeback, LRU",
		syntax:    "ssd-cache(INNER,size=32GiB[,ssd=sata-ssd,mode=readonly|writeback,admit_reads=2,block=4KiB,seq_cutoff=4MiB,dirty_threshold=0.2])",
		composite: true,
		fields: []field{
			{key: "inner", kind: kindSpec, required: true, help: "the cached (slower) device"},
			{key: "ssd", kind: kindSpec, def: Figure{Text: "sata-ssd"}, help: "the caching device"},
			{key: "size_gib", required: true, above: true, help: "cache size"},
			{key: "mode", kind: kindChoice, choices: []string{"readonly", "writeback"}, def: Figure{Text: "readonly"}, help: "readonly (Adaptec MaxIQ) or writeback"},
			{key: "admit_reads", kind: kindInteger, min: 1, max: 1e6, def: Figure{Value: 2, Source: "MaxIQ copies blocks on repeated reads"}, help: "reads of an uncached block before it is copied to the SSD"},
			{key: "block_kib", min: 0.5, def: Figure{Value: 4}, help: "cache block size"},
			{key: "seq_cutoff_mib", def: Figure{Value: 4, Source: "bcache sequential_cutoff default 4 MB"}, help: "requests this large bypass the cache (0: none do)"},
			{key: "dirty_threshold", above: true, max: 1, def: Figure{Value: 0.2, Source: "flashcache dirty_thresh_pct default 20"}, help: "fraction of blocks that may be dirty (writeback)"},
		},
		check: func(p *Profile) error { return checkCacheEntries(p, "block_kib") },
		build: func(b *builder, p *Profile, name string) (Model, error) {
			inner, err := b.build(p.Text("inner"))
			if err != nil {
				return nil, err
			}
			ssd, err := b.build(p.Text("ssd"))
			if err != nil {
				return nil, err
			}
			return NewSSDCache(name, p, ssd, inner), nil
		},
	}
}

// NewSSDCache builds an SSD cache from a checked ssd-cache profile.
func NewSSDCache(name string, p *Profile, ssd, inner Model) *SSDCache {
	c := &SSDCache{
		name:      name,
		power:     p.Power(),
		ssd:       ssd,
		inner:     inner,
		block:     max(1, int64(math.Round(p.Num("block_kib")*1024))),
		cutoff:    int64(math.Round(p.Num("seq_cutoff_mib") * (1 << 20))),
		admit:     int(p.Num("admit_reads")),
		writeback: p.Text("mode") == "writeback",
		cache:     newLRU[cacheBlock](),
		ghost:     newLRU[int](),
		dirty:     newLRU[int64](),
	}
	c.blocks = max(1, int64(p.Num("size_gib")*(1<<30))/c.block)
	c.dirtyLimit = max(1, int64(float64(c.blocks)*p.Num("dirty_threshold")))
	return c
}

func (c *SSDCache) Name() string     { return c.name }
func (c *SSDCache) Power() Power     { return c.power }
func (c *SSDCache) Members() []Model { return []Model{c.inner, c.ssd} }
func (c *SSDCache) Capacity() int64  { return capacityOf(c.inner) }

// Cached reports whether the block holding offset is in the cache.
func (c *SSDCache) Cached(offset int64) bool {
	_, ok := c.cache.peek(offset / c.block)
	return ok
}

// Submit implements Model.
func (c *SSDCache) Submit(at time.Duration, r Request) time.Duration {
	c.count(r)
	c.busy.advance(at)
	end := c.submit(at, r)
	c.busy.add(at, end)
	return end
}

func (c *SSDCache) submit(at time.Duration, r Request) time.Duration {
	size := max(r.Size, 0)
	switch {
	case r.Op == OpFlush:
		done := c.inner.Submit(at, r)
		if c.writeback {
			done = max(done, c.ssd.Submit(at, r))
		}
		return done
	case size == 0:
		return at
	case c.cutoff > 0 && size >= c.cutoff:
		if r.Op == OpWrite {
			c.dropRange(r.Offset, size)
		}
		return c.inner.Submit(at, r)
	case r.Op == OpWrite && !c.writeback:
		c.dropRange(r.Offset, size)
		return c.inner.Submit(at, r)
	}
	done := at
	// Parts that go to the backing device are merged while contiguous, so a large
	// uncached read is one request there, not one per block.
	var run Request
	flushRun := func() {
		if run.Size > 0 {
			done = max(done, c.inner.Submit(at, run))
			run.Size = 0
		}
	}
	for b := r.Offset / c.block; b <= (r.Offset+size-1)/c.block; b++ {
		lo, hi := max(r.Offset, b*c.block), min(r.Offset+size, (b+1)*c.block)
		part := Request{Op: r.Op, Offset: lo, Size: hi - lo, File: r.File}
		blk, cached := c.cache.get(b)
		if cached {
			c.st.Hits++
			part.Offset = blk.slot*c.block + lo - b*c.block
			done = max(done, c.ssd.Submit(at, part))
			if r.Op == OpWrite && !blk.dirty {
				blk.dirty = true
				c.dirty.put(b, blk.slot)
			}
			continue
		}
		c.st.Misses++
		if r.Op == OpWrite && hi-lo == c.block {
			slot := c.allocate(at, b)
			c.cache.put(b, cacheBlock{slot: slot, dirty: true})
			c.dirty.put(b, slot)
			part.Offset = slot * c.block
			done = max(done, c.ssd.Submit(at, part))
			continue
		}
		if run.Size > 0 && run.Offset+run.Size == part.Offset {
			run.Size += part.Size
		} else {
			flushRun()
			run = part
		}
		if r.Op == OpRead {
			c.countRead(at, b)
		}
	}
	flushRun()
	for int64(c.dirty.len()) > c.dirtyLimit {
		b, slot, _ := c.dirty.oldest()
		c.writeBack(at, b, slot)
		if blk, ok := c.cache.peek(b); ok {
			blk.dirty = false
		}
	}
	return done
}

// countRead counts a read miss and admits the block on the admit_reads-th; the copy to
// the SSD is background work.
func (c *SSDCache) countRead(at time.Duration, b int64) {
	n := 1
	if old, ok := c.ghost.remove(b); ok {
		n = old + 1
	}
	if n < c.admit {
		c.ghost.put(b, n)
		for int64(c.ghost.len()) > c.blocks {
			k, _, _ := c.ghost.oldest()
			c.ghost.remove(k)
		}
		return
	}
	slot := c.allocate(at, b)
	c.cache.put(b, cacheBlock{slot: slot})
	c.ssd.Submit(at, Request{Op: OpWrite, Offset: slot * c.block, Size: c.block})
}

// allocate returns a free slot, evicting the least recent block if needed.
func (c *SSDCache) allocate(at time.Duration, b int64) int64 {
	if len(c.free) == 0 && c.next < c.blocks {
		c.next++
		return c.next - 1
	}
	if len(c.free) == 0 {
		old, blk, _ := c.cache.oldest()
		c.cache.remove(old)
		if blk.dirty {
			c.writeBack(at, old, blk.slot)
		}
		c.free = append(c.free, blk.slot)
	}
	slot := c.free[len(c.free)-1]
	c.free = c.free[:len(c.free)-1]
	return slot
}

// writeBack copies a dirty block from the SSD to the backing device (background).
func (c *SSDCache) writeBack(at time.Duration, b, slot int64) {
	c.dirty.remove(b)
	c.st.Writebacks++
	c.ssd.Submit(at, Request{Op: OpRead, Offset: slot * c.block, Size: c.block})
	c.inner.Submit(at, Request{Op: OpWrite, Offset: b * c.block, Size: c.block})
}

// dropRange removes cached blocks a write to the backing device makes stale.
func (c *SSDCache) dropRange(off, size int64) {
	for b := off / c.block; b <= (off+size-1)/c.block; b++ {
		if blk, ok := c.cache.remove(b); ok {
			c.dirty.remove(b)
			c.free = append(c.free, blk.slot)
		}
	}
}
