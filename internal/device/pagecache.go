package device

import (
	"maps"
	"math"
	"slices"
	"time"
)

// PageCache is the emulated machine's page cache in front of a device: an LRU of pages
// holding size bytes (the emulated machine's free RAM, so that comparing buffer-pool
// sizes means something; docs/devices.md, "Caches and tiers").
//
//   - A read copies hit pages from memory and reads the missing ones from the device,
//     contiguous misses as one request. With readahead > 0 a file read sequentially
//     also brings in the pages after the request, as Linux's on-demand readahead does
//     (readahead.go); with readahead=0, the default, only the requested pages.
//   - A write dirties pages and returns after the copy; a partial write to a page not in
//     the cache first reads that page, unless the page lies wholly past the file's end
//     as it was (Request.Unwritten): the kernel gives it zeros. When dirty pages exceed dirty_ratio of the cache
//     (Linux vm.dirty_ratio) the writer waits while the oldest-dirtied pages are written
//     back, as balance_dirty_pages throttles writers.
//   - A flush (fsync) writes back the file's dirty pages (all files when File is 0),
//     contiguous pages as one write, then flushes the device.
//   - Evicting a dirty page writes it back without delaying the request that evicted it.
//   - O_DIRECT requests go straight to the device; a direct write drops cached pages it
//     overlaps. (Linux would first write back dirty pages in a direct request's range;
//     that is not modelled.)
type PageCache struct {
	counters
	name  string
	power Power
	inner Model

	page, pages, dirtyLimit int64
	copyRate                int64

	cache  *lru[pageState]
	dirty  *lru[uint64] // dirty pages in the order they were dirtied -> file
	byFile map[uint64]map[int64]struct{}

	raMax int64          // largest readahead window in pages; 0: no readahead
	ra    *lru[*raState] // readahead state of the files read lately, by file

	watch PageWatcher // told of every page that comes in or goes; nil: nobody
}

// A PageWatcher is told which pages a page cache holds, so that a client can answer a
// read of pages it knows to be there without asking the model first (the emulator's
// preload ring does: a hit in a real page cache costs a copy, not a round trip). In
// says page p is in the cache and its data is there from ready on (a page read from
// the device is there when its read completes); Out says it left (evicted, or dropped
// by a direct write). A page may come In again with a later ready while it is in.
type PageWatcher interface {
	In(page int64, ready time.Duration)
	Out(page int64)
}

// Watch makes w the cache's watcher (nil: none). It is told only of changes after
// the call: set it on an empty cache.
func (c *PageCache) Watch(w PageWatcher) { c.watch = w }

// Holds says whether page p is in the cache, without touching its recency.
func (c *PageCache) Holds(p int64) bool {
	_, ok := c.cache.peek(p)
	return ok
}

// PageBytes is the cache's page size in bytes.
func (c *PageCache) PageBytes() int64 { return c.page }

// DirtyLimit is how many pages may be dirty before a writer waits for writeback.
func (c *PageCache) DirtyLimit() int64 { return c.dirtyLimit }

// CopyTime is what a request of size bytes that the cache serves without the device
// takes: the copy to or from memory.
func (c *PageCache) CopyTime(size int64) time.Duration { return xfer(size, c.copyRate) }

type pageState struct {
	file  uint64
	dirty bool
}

func pageCacheClass() *class {
	return &class{
		name:      "pagecache",
		help:      "host page cache of the emulated machine (O_DIRECT bypasses it); readahead=0 by default, Linux reads ahead 128KiB",
		syntax:    "pagecache(INNER,size=4GiB[,page=4KiB,copy=10GB/s,dirty_ratio=0.2,readahead=0])",
		composite: true,
		fields: []field{
			{key: "inner", kind: kindSpec, required: true, help: "the device under the cache"},
			{key: "size_gib", required: true, above: true, help: "cache size (the emulated machine's free RAM)"},
			{key: "page_kib", min: 0.5, def: Figure{Value: 4, Source: "Linux page size on x86-64"}, help: "page size"},
			{key: "copy_gbps", above: true, def: Figure{Value: 10, Source: "assumption: one core's memcpy"}, help: "memory copy rate in GB/s"},
			{key: "dirty_ratio", above: true, max: 1, def: Figure{Value: 0.2, Source: "Linux vm.dirty_ratio default 20"}, help: "fraction of the cache that may be dirty"},
			{key: "readahead_kib", min: 0, def: Figure{Value: 0, Source: "tierbench default: no readahead, so that earlier results keep their meaning; Linux reads ahead up to 128 KiB (VM_READAHEAD_PAGES) or the device's read_ahead_kb"},
				help: "largest readahead window on sequential reads (0: none, the default; Linux's default is 128KiB)"},
		},
		check: func(p *Profile) error { return checkCacheEntries(p, "page_kib") },
		build: func(b *builder, p *Profile, name string) (Model, error) {
			inner, err := b.build(p.Text("inner"))
			if err != nil {
				return nil, err
			}
			return NewPageCache(name, p, inner), nil
		},
	}
}

// NewPageCache builds a page cache from a checked pagecache profile around inner.
func NewPageCache(name string, p *Profile, inner Model) *PageCache {
	c := &PageCache{
		name:     name,
		power:    p.Power(),
		inner:    inner,
		page:     max(1, int64(math.Round(p.Num("page_kib")*1024))),
		copyRate: int64(math.Round(p.Num("copy_gbps") * 1e9)),
		cache:    newLRU[pageState](),
		dirty:    newLRU[uint64](),
		byFile:   map[uint64]map[int64]struct{}{},
	}
	c.pages = max(1, int64(p.Num("size_gib")*(1<<30))/c.page)
	c.dirtyLimit = max(1, int64(float64(c.pages)*p.Num("dirty_ratio")))
	c.raMax = int64(p.Num("readahead_kib")*1024) / c.page
	c.ra = newLRU[*raState]()
	return c
}

func (c *PageCache) Name() string      { return c.name }
func (c *PageCache) Power() Power      { return c.power }
func (c *PageCache) Members() []Model  { return []Model{c.inner} }
func (c *PageCache) Capacity() int64   { return capacityOf(c.inner) }
func (c *PageCache) DirtyPages() int64 { return int64(c.dirty.len()) }

// CachedPages is the number of pages the cache holds; never more than its size.
func (c *PageCache) CachedPages() int64 { return int64(c.cache.len()) }

// SizePages is the cache's size in pages.
func (c *PageCache) SizePages() int64 { return c.pages }

// Submit implements Model.
func (c *PageCache) Submit(at time.Duration, r Request) time.Duration {
	c.count(r)
	c.busy.advance(at)
	end := c.submit(at, r)
	c.busy.add(at, end)
	return end
}

func (c *PageCache) submit(at time.Duration, r Request) time.Duration {
	size := max(r.Size, 0)
	if r.Op == OpFlush {
		return c.flush(at, r.File)
	}
	if r.Direct {
		if r.Op == OpWrite {
			for p := r.Offset / c.page; size > 0 && p <= (r.Offset+size-1)/c.page; p++ {
				c.drop(p)
			}
		}
		return c.inner.Submit(at, r)
	}
	if size == 0 {
		return at
	}
	if r.Op == OpRead && c.raMax > 0 {
		return c.readAhead(at, r) + xfer(size, c.copyRate)
	}
	first, last := r.Offset/c.page, (r.Offset+size-1)/c.page
	// Pages to read from the device go as they are found, contiguous runs as one
	// request; nothing proportional to the request's size is kept.
	done := at
	run := pageRun{op: OpRead, file: r.File}
	for p := first; p <= last; p++ {
		if _, ok := c.cache.get(p); ok {
			c.st.Hits++
			continue
		}
		c.st.Misses++
		whole := r.Offset <= p*c.page && (p+1)*c.page <= r.Offset+size
		// a page wholly past the file's old end has nothing on the device to read
		fresh := r.Unwritten > 0 && p*c.page >= r.Offset+size-min(r.Unwritten, size)
		if r.Op == OpRead || !whole && !fresh {
			done = max(done, run.add(c, at, p))
		}
	}
	done = max(done, run.flush(c, at))
	for p := first; p <= last; p++ {
		st, ok := c.cache.peek(p)
		if !ok {
			// Evict before each page comes in, so the cache never holds more than its
			// size, even for a request larger than the cache.
			c.evict(at, c.pages-1)
			c.cache.put(p, pageState{file: r.File})
			st, _ = c.cache.peek(p)
			if c.watch != nil {
				// the page's data is there when the reads the request waits for
				// are (a whole page written is there at once; at done either way)
				c.watch.In(p, done)
			}
		}
		if r.Op == OpWrite && !st.dirty {
			st.dirty, st.file = true, r.File
			c.markDirty(p, r.File)
		}
	}
	if r.Op == OpWrite && int64(c.dirty.len()) > c.dirtyLimit {
		// each file's pages go as that file's writes, so that a later fsync of the
		// file waits for them on a device that scopes its flush to the file, as
		// fdatasync waits for its file's pages under writeback (files in order, so
		// that the same requests always reach the device in the same order)
		old := map[uint64][]int64{}
		for int64(c.dirty.len()) > c.dirtyLimit {
			p, file, _ := c.dirty.oldest()
			c.clean(p)
			old[file] = append(old[file], p)
		}
		for _, file := range slices.Sorted(maps.Keys(old)) {
			slices.Sort(old[file])
			done = max(done, c.transfer(at, OpWrite, old[file], file))
		}
	}
	return done + xfer(size, c.copyRate)
}

// pageRun collects contiguous pages into one request to the inner device.
type pageRun struct {
	op       Op
	file     uint64
	first, n int64
}

// add adds page p, sending the run so far if p does not continue it; it returns the
// completion of what was sent (0 if nothing).
func (r *pageRun) add(c *PageCache, at time.Duration, p int64) time.Duration {
	var done time.Duration
	if r.n > 0 && p != r.first+r.n {
		done = r.flush(c, at)
	}
	if r.n == 0 {
		r.first = p
	}
	r.n++
	return done
}

// flush sends the run, if any, and returns its completion (0 if none).
func (r *pageRun) flush(c *PageCache, at time.Duration) time.Duration {
	if r.n == 0 {
		return 0
	}
	done := c.inner.Submit(at, Request{Op: r.op, Offset: r.first * c.page, Size: r.n * c.page, File: r.file})
	if r.op == OpWrite {
		c.st.Writebacks += r.n
	}
	r.n = 0
	return done
}

// transfer sends the pages (sorted) to the device, contiguous runs as one request,
// and returns when the last completes (at if there are none).
func (c *PageCache) transfer(at time.Duration, op Op, pages []int64, file uint64) time.Duration {
	done := at
	for i := 0; i < len(pages); {
		j := i + 1
		for j < len(pages) && pages[j] == pages[j-1]+1 {
			j++
		}
		req := Request{Op: op, Offset: pages[i] * c.page, Size: int64(j-i) * c.page, File: file}
		done = max(done, c.inner.Submit(at, req))
		if op == OpWrite {
			c.st.Writebacks += int64(j - i)
		}
		i = j
	}
	return done
}

func (c *PageCache) flush(at time.Duration, file uint64) time.Duration {
	var pages []int64
	if file == 0 {
		for f := range c.byFile {
			for p := range c.byFile[f] {
				pages = append(pages, p)
			}
		}
	} else {
		for p := range c.byFile[file] {
			pages = append(pages, p)
		}
	}
	slices.Sort(pages)
	for _, p := range pages {
		c.clean(p)
	}
	done := c.transfer(at, OpWrite, pages, file)
	return max(done, c.inner.Submit(at, Request{Op: OpFlush, File: file}))
}

// evict removes the least recent pages until at most keep remain; dirty ones are
// written back without delaying anyone.
func (c *PageCache) evict(at time.Duration, keep int64) {
	for int64(c.cache.len()) > keep {
		p, st, _ := c.cache.oldest()
		c.cache.remove(p)
		if c.watch != nil {
			c.watch.Out(p)
		}
		if st.dirty {
			c.clean(p)
			c.transfer(at, OpWrite, []int64{p}, st.file)
		}
	}
}

func (c *PageCache) markDirty(p int64, file uint64) {
	c.dirty.put(p, file)
	if c.byFile[file] == nil {
		c.byFile[file] = map[int64]struct{}{}
	}
	c.byFile[file][p] = struct{}{}
}

// clean forgets that page p is dirty.
func (c *PageCache) clean(p int64) {
	file, ok := c.dirty.remove(p)
	if !ok {
		return
	}
	delete(c.byFile[file], p)
	if len(c.byFile[file]) == 0 {
		delete(c.byFile, file)
	}
	if st, ok := c.cache.peek(p); ok {
		st.dirty = false
	}
}

// drop removes page p from the cache, dirty or not.
func (c *PageCache) drop(p int64) {
	c.clean(p)
	if _, ok := c.cache.remove(p); ok && c.watch != nil {
		c.watch.Out(p)
	}
}

func capacityOf(m Model) int64 {
	if s, ok := m.(Sized); ok {
		return s.Capacity()
	}
	return 0
}
