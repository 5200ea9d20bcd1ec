package device

import (
	"math"
	"slices"
	"time"
)

// RAIDCache is a RAID controller's write-back cache in front of the device the
// controller presents (docs/devices.md, "A RAID controller's write-back cache"): the
// DRAM of a card such as the Adaptec 5445Z (512 MB, seed study 002), wrapped around
// whatever sits behind it: a raid10(...), one disk, an ssd-cache(...).
//
//   - A write crosses the host interface (interface_mbps) into the cache and is
//     acknowledged after controller_us, as long as the cache has room; the lines
//     (line_kib) it touches are dirty.
//   - While more than dirty_threshold of the cache is dirty, the controller destages
//     in the background in elevator order: the dirty lines are sorted once per sweep
//     and written upwards from where the last sweep stopped, contiguous lines as one
//     request of up to 1 MiB (FSCAN: lines dirtied during a sweep wait for the next).
//     At most destage_depth destage writes are in flight at once, so a read queues
//     behind a few of them in a member disk, not behind the whole cache; a destage is
//     submitted at the time of the request that finds a slot free.
//   - A write that finds the cache full (dirty lines plus lines in flight) waits while
//     lines are destaged, as a controller throttles the host. The destage writes it
//     waits for go to the device at the times slots free, ahead of requests submitted
//     after the writer: with its cache full a controller is destaging, and readers
//     queue behind that too.
//   - A read of lines that are dirty, or being destaged, is served from the cache;
//     other lines are read from the device, contiguous ones as one request. Clean data
//     is not kept for reads (the controller's read cache and read-ahead are not
//     modelled: what makes a write-back cache matter is the writes).
//   - A flush (SYNCHRONIZE CACHE) with a protected cache (bbu: a battery, or
//     Adaptec's supercapacitor and flash) returns after controller_us: the data is as
//     safe in the cache as on the disks. Without protection the flush destages every
//     dirty line, waits for them and flushes the device.
//   - A write larger than the whole cache goes through to the device.
//
// Lines are whole: a write of part of a line dirties the line, and the line is
// destaged whole.
type RAIDCache struct {
	counters
	name  string
	power Power
	inner Model

	line, lines, threshold int64
	depth                  int
	ctrl                   time.Duration
	ifRate                 int64
	bbu                    bool

	dirty    map[int64]struct{}
	inflight map[int64]int // lines of destage writes in flight -> how many hold them
	held     int64         // lines held by destage writes in flight, summed
	out      []destage     // destage writes in flight, by end time
	// The sweep: the dirty lines sorted when it began, visited from index start
	// around the end once (k visited so far); cursor is where the next sweep starts.
	sweep    []int64
	start, k int
	cursor   int64

	// The host interface, one transfer at a time each way: writes arrive in order, so
	// a busy-until clock does; reads finish out of order (a hit before an earlier
	// miss), so each takes the first gap once its data is ready.
	txFree time.Duration
	rx     timeline
}

// destage is a destage write in flight: lines first..first+n-1, done at end.
type destage struct {
	end      time.Duration
	first, n int64
}

// maxDestageBytes bounds one destage request: a run of contiguous dirty lines longer
// than this is written as several requests, so that a long sequential write does not
// hold a member disk in one request while reads wait.
const maxDestageBytes = 1 << 20

func raidCacheClass() *class {
	return &class{
		name:      "raidcache",
		help:      "a RAID controller's write-back cache (battery- or flash-protected or not)",
		syntax:    "raidcache(INNER,size=512MiB[,bbu=true,line=4KiB,dirty_threshold=0.1,controller=50us,interface=2GB/s,destage_depth=0])",
		composite: true,
		fields: []field{
			{key: "inner", kind: kindSpec, required: true, help: "the device behind the controller (an array, a disk, an ssd-cache)"},
			{key: "size_gib", required: true, above: true, help: "cache memory (size=512MiB: the Adaptec 5445Z of seed study 002)"},
			{key: "bbu", kind: kindBool, def: Figure{Value: 1, Source: "Adaptec Series 5Z: a supercapacitor and NAND flash protect the cache (The Register, 25 June 2009; docs/devices.md)"},
				help: "the cache is protected (battery or flash): a flush returns at once; off: a flush destages everything first"},
			{key: "line_kib", min: 0.5, def: Figure{Value: 4, Source: "assumption: the host's 4 KiB page, the unit the engines write"}, help: "cache line: the unit of dirty data"},
			{key: "dirty_threshold", min: 0, max: 1, def: Figure{Value: 0.1, Source: "assumption: Adaptec publishes none; Linux's vm.dirty_background_ratio default 10 (background writeback from 10% dirty) as the analogue"},
				help: "fraction of the cache that may be dirty before background destaging starts"},
			{key: "controller_us", def: Figure{Value: 50, Source: "assumption: firmware time of the card's embedded processor (dual-core 1.2 GHz on Adaptec Series 5, xbitlabs ASR-5805 review), of the order of an SSD controller's"},
				help: "controller time per command"},
			{key: "interface_mbps", above: true, def: Figure{Value: 2000, Source: "PCI Express 1.0 x8 (Adaptec Series 5): 8 lanes of 250 MB/s per direction"},
				help: "host interface rate per direction in MB/s"},
			{key: "destage_depth", kind: kindInteger, min: 0, max: 4096, def: Figure{Value: 0, Source: "tierbench default: one per drive behind the controller"},
				help: "destage writes in flight at once (0: one per leaf device of the inner spec)"},
		},
		check: func(p *Profile) error { return checkCacheEntries(p, "line_kib") },
		build: func(b *builder, p *Profile, name string) (Model, error) {
			inner, err := b.build(p.Text("inner"))
			if err != nil {
				return nil, err
			}
			return NewRAIDCache(name, p, inner), nil
		},
	}
}

// NewRAIDCache builds a controller cache from a checked raidcache profile around inner.
func NewRAIDCache(name string, p *Profile, inner Model) *RAIDCache {
	c := &RAIDCache{
		name:     name,
		power:    p.Power(),
		inner:    inner,
		line:     max(1, int64(math.Round(p.Num("line_kib")*1024))),
		depth:    int(p.Num("destage_depth")),
		ctrl:     time.Duration(math.Round(p.Num("controller_us") * 1e3)),
		ifRate:   int64(math.Round(p.Num("interface_mbps") * 1e6)),
		bbu:      p.Bool("bbu"),
		dirty:    map[int64]struct{}{},
		inflight: map[int64]int{},
	}
	c.lines = max(1, int64(p.Num("size_gib")*(1<<30))/c.line)
	c.threshold = int64(float64(c.lines) * p.Num("dirty_threshold"))
	if c.depth == 0 {
		c.depth = max(1, leaves(inner))
	}
	return c
}

// leaves counts the devices without members inside m (m itself if it has none).
func leaves(m Model) int {
	n := 0
	Walk(m, func(_ int, mm Model) {
		if c, ok := mm.(Composite); !ok || len(c.Members()) == 0 {
			n++
		}
	})
	return n
}

func (c *RAIDCache) Name() string     { return c.name }
func (c *RAIDCache) Power() Power     { return c.power }
func (c *RAIDCache) Members() []Model { return []Model{c.inner} }
func (c *RAIDCache) Capacity() int64  { return capacityOf(c.inner) }

// DirtyLines is the number of dirty lines (not counting those being destaged).
func (c *RAIDCache) DirtyLines() int64 { return int64(len(c.dirty)) }

// Dirty reports whether the line holding offset is dirty.
func (c *RAIDCache) Dirty(offset int64) bool {
	_, ok := c.dirty[offset/c.line]
	return ok
}

// Submit implements Model.
func (c *RAIDCache) Submit(at time.Duration, r Request) time.Duration {
	c.count(r)
	c.busy.advance(at)
	end := c.submit(at, r)
	c.busy.add(at, end)
	return end
}

func (c *RAIDCache) submit(at time.Duration, r Request) time.Duration {
	size := max(r.Size, 0)
	switch {
	case r.Op == OpFlush:
		return c.flush(at, r)
	case size == 0:
		return at
	case r.Op == OpRead:
		return c.read(at, r, size)
	}
	first, last := r.Offset/c.line, (r.Offset+size-1)/c.line
	if last-first+1 > c.lines {
		// Larger than the cache: through to the device; its lines are superseded.
		for l := first; l <= last; l++ {
			delete(c.dirty, l)
		}
		c.pump(at, 0)
		return c.inner.Submit(c.receive(at, size)+c.ctrl, r)
	}
	var fresh int64
	for l := first; l <= last; l++ {
		if _, ok := c.dirty[l]; !ok {
			fresh++
		}
	}
	t := at
	for {
		c.pump(t, fresh)
		if int64(len(c.dirty))+c.held+fresh <= c.lines || len(c.out) == 0 {
			break
		}
		t = c.out[0].end // wait for the first destage in flight to finish
	}
	for l := first; l <= last; l++ {
		c.dirty[l] = struct{}{}
	}
	ack := c.receive(t, size) + c.ctrl
	c.pump(at, 0)
	return ack
}

// receive moves size bytes from the host over the interface from t; it returns when
// they are in.
func (c *RAIDCache) receive(t time.Duration, size int64) time.Duration {
	c.txFree = max(t, c.txFree) + xfer(size, c.ifRate)
	return c.txFree
}

func (c *RAIDCache) read(at time.Duration, r Request, size int64) time.Duration {
	c.pump(at, 0)
	done := at + c.ctrl
	var run Request
	send := func() {
		if run.Size > 0 {
			done = max(done, c.inner.Submit(at+c.ctrl, run))
			run.Size = 0
		}
	}
	for l := r.Offset / c.line; l <= (r.Offset+size-1)/c.line; l++ {
		_, dirty := c.dirty[l]
		if dirty || c.inflight[l] > 0 {
			c.st.Hits++
			send()
			continue
		}
		c.st.Misses++
		lo, hi := max(r.Offset, l*c.line), min(r.Offset+size, (l+1)*c.line)
		if run.Size > 0 && run.Offset+run.Size == lo {
			run.Size += hi - lo
		} else {
			send()
			run = Request{Op: OpRead, Offset: lo, Size: hi - lo, File: r.File}
		}
	}
	send()
	return c.rx.reserve(at, done, xfer(size, c.ifRate))
}

func (c *RAIDCache) flush(at time.Duration, r Request) time.Duration {
	c.pump(at, 0)
	if c.bbu {
		return at + c.ctrl
	}
	done := at
	for len(c.dirty) > 0 {
		first, n := c.nextRun()
		done = max(done, c.destageRun(at, first, n))
	}
	for _, d := range c.out {
		done = max(done, d.end)
	}
	return max(done, c.inner.Submit(at, r)) + c.ctrl
}

// pump retires the destage writes finished by t and starts new ones while slots are
// free and the cache is dirty beyond its threshold, or short of room for need more
// lines.
func (c *RAIDCache) pump(t time.Duration, need int64) {
	i := 0
	for i < len(c.out) && c.out[i].end <= t {
		d := c.out[i]
		for l := d.first; l < d.first+d.n; l++ {
			if c.inflight[l]--; c.inflight[l] <= 0 {
				delete(c.inflight, l)
			}
		}
		c.held -= d.n
		i++
	}
	c.out = c.out[i:]
	for len(c.out) < c.depth && len(c.dirty) > 0 {
		over := int64(len(c.dirty)) > c.threshold
		short := int64(len(c.dirty))+c.held+need > c.lines
		if !over && !short {
			return
		}
		first, n := c.nextRun()
		c.destageRun(t, first, n)
	}
}

// destageRun writes lines first..first+n-1 to the device from t and returns when they
// are written; they stay in memory until then.
func (c *RAIDCache) destageRun(t time.Duration, first, n int64) time.Duration {
	for l := first; l < first+n; l++ {
		delete(c.dirty, l)
		c.inflight[l]++
	}
	c.held += n
	c.st.Writebacks += n
	end := c.inner.Submit(t, Request{Op: OpWrite, Offset: first * c.line, Size: n * c.line})
	i, _ := slices.BinarySearchFunc(c.out, end, func(d destage, e time.Duration) int {
		if d.end <= e {
			return -1
		}
		return 1
	})
	c.out = slices.Insert(c.out, i, destage{end: end, first: first, n: n})
	return end
}

// nextRun returns the next run of contiguous dirty lines in elevator order (there must
// be a dirty line). A sweep visits the lines that were dirty when it began in
// ascending order from the cursor, wrapping once; lines no longer dirty are skipped.
func (c *RAIDCache) nextRun() (int64, int64) {
	for {
		if c.k >= len(c.sweep) {
			c.sweep = c.sweep[:0]
			for l := range c.dirty {
				c.sweep = append(c.sweep, l)
			}
			slices.Sort(c.sweep)
			c.start, _ = slices.BinarySearch(c.sweep, c.cursor)
			c.k = 0
		}
		l := c.at(c.k)
		c.k++
		if _, ok := c.dirty[l]; !ok {
			continue
		}
		n := int64(1)
		for n < max(1, maxDestageBytes/c.line) && c.k < len(c.sweep) {
			next := c.at(c.k)
			if _, ok := c.dirty[next]; !ok || next != l+n {
				break
			}
			n++
			c.k++
		}
		c.cursor = l + n
		return l, n
	}
}

// at is the sweep's i-th line in visiting order.
func (c *RAIDCache) at(i int) int64 { return c.sweep[(c.start+i)%len(c.sweep)] }
