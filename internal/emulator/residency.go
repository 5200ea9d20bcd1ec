package emulator

import (
	"container/heap"
	"time"

	"tierbench/internal/device"
)

// residency publishes a preload device's page cache model to the ring's clients, so
// that a read of pages the model holds is served by the client without a round trip
// through the server: a hit in a real page cache costs the reader a copy, and on a
// host whose CPUs the database keeps busy the round trip cost 15-46 us a hit where the
// model gives a hit under 1 us (docs/devices.md, "Two paths to the models"). The client
// reports the hit afterwards and the server submits it to the model then, for the
// cache's recency and counters (fastHit).
//
// What the clients see: where each file's chunks lie on the device (the layout's
// extents, published as they are made) and which device pages the model holds with
// their data there. A page comes in with the time its data arrives (the read that
// brings it completing) and is marked only from then on (settle): a reader of a page
// still on its way from the device asks, and waits for it as the model says. A page
// that leaves is unmarked at once.
type residency struct {
	pub publisher
	dev int
	pc  *device.PageCache

	pending readyHeap               // pages in, by the time their data is there
	want    map[int64]time.Duration // each pending page's latest ready time

	// hit records taken; of those, the ones the model would have made wait longer
	// than the copy (a page evicted meanwhile, a write throttled)
	hits, misses int64
}

// publisher is the ring's side of residency (preload.Ring).
type publisher interface {
	Publish(dev int, file uint64, chunk, dchunk int64) bool
	Unpublish(dev int)
	SetResident(dev int, page int64, on bool)
	SetWriteBudget(dev int, pages int64)
}

// residentBytes is how much of a device's layout the bitmap covers: 64 GiB of device
// offsets (2 MiB of bitmap for 4 KiB pages); reads beyond it always ask.
const residentBytes = 64 << 30

func newResidency(pub publisher, dev int, pc *device.PageCache) *residency {
	r := &residency{pub: pub, dev: dev}
	r.restart(pc)
	return r
}

// restart forgets everything published and watches pc, a model that starts afresh.
func (r *residency) restart(pc *device.PageCache) {
	r.pub.Unpublish(r.dev)
	r.pending, r.want = nil, map[int64]time.Duration{}
	r.pc = pc
	if pc != nil {
		pc.Watch(r)
	}
}

// In implements device.PageWatcher.
func (r *residency) In(p int64, ready time.Duration) {
	r.want[p] = ready
	heap.Push(&r.pending, readyPage{p, ready})
}

// Out implements device.PageWatcher.
func (r *residency) Out(p int64) {
	delete(r.want, p)
	r.pub.SetResident(r.dev, p, false)
}

// settle marks the pages whose data is there by now (virtual time), gives the clients
// the write budget (the dirty pages the model's limit still allows), and returns how
// long until the next pending page is there (0: none pending).
func (r *residency) settle(now time.Duration) time.Duration {
	if r.pc != nil {
		r.pub.SetWriteBudget(r.dev, r.pc.DirtyLimit()-r.pc.DirtyPages())
	}
	for len(r.pending) > 0 {
		top := r.pending[0]
		if top.ready > now {
			return top.ready - now
		}
		heap.Pop(&r.pending)
		if ready, ok := r.want[top.page]; ok && ready == top.ready {
			delete(r.want, top.page)
			if r.pc.Holds(top.page) {
				r.pub.SetResident(r.dev, top.page, true)
			}
		}
	}
	return 0
}

// mapped publishes n chunks of file from file chunk f at device chunk d.
func (r *residency) mapped(file uint64, f, d, n int64) {
	for i := range n {
		r.pub.Publish(r.dev, file, f+i, d+i)
	}
}

type readyPage struct {
	page  int64
	ready time.Duration
}

// readyHeap is a min-heap of pages by ready time (container/heap).
type readyHeap []readyPage

func (h readyHeap) Len() int           { return len(h) }
func (h readyHeap) Less(i, j int) bool { return h[i].ready < h[j].ready }
func (h readyHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *readyHeap) Push(x any)        { *h = append(*h, x.(readyPage)) }
func (h *readyHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
