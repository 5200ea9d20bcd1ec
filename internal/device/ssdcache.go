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
// Where blocks live on the SSD: blocks are written where a log's write pointer stands,
// one after the other, as bcache appends what it caches to its open bucket; so the
// blocks one request brought in lie side by side. Which blocks are cached is decided by
// LRU over blocks (bcache reuses whole buckets by priority; LRU is the approximation).
//
// How a request reaches the devices (docs/devices.md, "How an SSD cache's requests
// reach the SSD"): its cached parts that lie side by side on the SSD go as one SSD
// request, as bcache splits a read once per cached extent, not per block, and dm-cache
// once per cache block of 32 KiB or more; its uncached parts go to the backing device,
// contiguous ones as one request. A copy-in (a block admitted on a read miss) writes
// the admitted blocks to the SSD, side by side ones as one write, once the backing
// device has returned their data, as bcache inserts a miss into the cache when the
// backing read completes (with the first request submitted after that: models take
// requests in time order).
//
// In both modes a request of seq_cutoff_mib or more bypasses the cache (bcache's
// sequential_cutoff). Background work (copy-ins, write-backs) never delays the request
// that caused it, though it occupies the devices' queues. A flush flushes the backing
// device, and the SSD in writeback mode.
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
	next  int64       // the log's write pointer: the slot the next admitted block takes

	// Copy-ins wait here until their data has been read (ready); each goes to the
	// SSD with the first request submitted after that, at ready or at the previous
	// request's time if later, so that no request is submitted at a time before one
	// already submitted (a copy-in dated after a later request would hold it up).
	fills  []pendingFill
	lastAt time.Duration
}

type pendingFill struct {
	ready time.Duration
	req   Request
}

// cacheBlock is a cached block: where it lies on the SSD (slot x block bytes) and
// whether it holds data the backing device lacks.
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
	c.sendFills(at)
	end := c.submit(at, r)
	c.busy.add(at, end)
	c.lastAt = max(c.lastAt, at)
	return end
}

// sendFills writes to the SSD the copy-ins whose data was read by at.
func (c *SSDCache) sendFills(at time.Duration) {
	keep := c.fills[:0]
	for _, f := range c.fills {
		if f.ready > at {
			keep = append(keep, f)
			continue
		}
		c.ssd.Submit(max(f.ready, c.lastAt), f.req)
	}
	c.fills = keep
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
	// The request's parts, as runs: on the SSD (cached blocks, and in writeback mode
	// whole blocks written into the cache), side by side on it; on the backing device
	// (misses), contiguous there; and the copy-ins of the current miss run, sent once
	// that run has been read.
	ssd := Request{Op: r.Op, File: r.File}
	miss := Request{Op: r.Op, File: r.File}
	var fills []Request
	sendSSD := func() {
		if ssd.Size > 0 {
			done = max(done, c.ssd.Submit(at, ssd))
			ssd.Size = 0
		}
	}
	sendMiss := func() {
		if miss.Size == 0 {
			return
		}
		read := c.inner.Submit(at, miss)
		done = max(done, read)
		for _, f := range fills {
			c.fills = append(c.fills, pendingFill{ready: read, req: f}) // the data is in memory once read
		}
		miss.Size, fills = 0, fills[:0]
	}
	addSSD := func(off, n int64) {
		if ssd.Size > 0 && ssd.Offset+ssd.Size == off {
			ssd.Size += n
			return
		}
		sendSSD()
		ssd.Offset, ssd.Size = off, n
	}
	for b := r.Offset / c.block; b <= (r.Offset+size-1)/c.block; b++ {
		lo, hi := max(r.Offset, b*c.block), min(r.Offset+size, (b+1)*c.block)
		blk, cached := c.cache.get(b)
		if cached {
			c.st.Hits++
			sendMiss()
			addSSD(blk.slot*c.block+lo-b*c.block, hi-lo)
			if r.Op == OpWrite && !blk.dirty {
				blk.dirty = true
				c.dirty.put(b, blk.slot)
			}
			continue
		}
		c.st.Misses++
		if r.Op == OpWrite && hi-lo == c.block {
			sendMiss()
			slot := c.allocate(at)
			c.cache.put(b, cacheBlock{slot: slot, dirty: true})
			c.dirty.put(b, slot)
			addSSD(slot*c.block, c.block)
			continue
		}
		sendSSD()
		if miss.Size > 0 && miss.Offset+miss.Size != lo {
			sendMiss()
		}
		if miss.Size == 0 {
			miss.Offset = lo
		}
		miss.Size += hi - lo
		if r.Op == OpRead {
			if slot, ok := c.countRead(at, b); ok {
				if n := len(fills); n > 0 && fills[n-1].Offset+fills[n-1].Size == slot*c.block {
					fills[n-1].Size += c.block
				} else {
					fills = append(fills, Request{Op: OpWrite, Offset: slot * c.block, Size: c.block})
				}
			}
		}
	}
	sendSSD()
	sendMiss()
	for int64(c.dirty.len()) > c.dirtyLimit {
		b, slot, _ := c.dirty.oldest()
		c.writeBack(at, b, slot)
		if blk, ok := c.cache.peek(b); ok {
			blk.dirty = false
		}
	}
	return done
}

// countRead counts a read miss of block b and admits the block on the admit_reads-th:
// it returns the slot the block takes, to be copied in.
func (c *SSDCache) countRead(at time.Duration, b int64) (int64, bool) {
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
		return 0, false
	}
	slot := c.allocate(at)
	c.cache.put(b, cacheBlock{slot: slot})
	return slot, true
}

// allocate makes room for a block, evicting the least recent if the cache is full, and
// returns the slot at the log's write pointer, which then moves on.
func (c *SSDCache) allocate(at time.Duration) int64 {
	for int64(c.cache.len()) >= c.blocks {
		old, blk, _ := c.cache.oldest()
		c.cache.remove(old)
		if blk.dirty {
			c.writeBack(at, old, blk.slot)
		}
	}
	slot := c.next
	c.next = (c.next + 1) % c.blocks
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
		if _, ok := c.cache.remove(b); ok {
			c.dirty.remove(b)
		}
	}
}
