package device

import (
	"math"
	"time"
)

// HDD is a disk with one head (one server, FIFO), following docs/devices.md, "HDD
// service time":
//
//	T = controller overhead + seek(d) + rotational wait + size / transfer rate
//
// Geometry: the capacity is split evenly over N cylinders (cylinder = offset / (capacity
// / N)); a track holds what passes under the head in one revolution (transfer rate x
// revolution time); a byte's angle is its position within its track. Zoned recording
// and head switches are not modelled: one transfer rate for the whole disk.
//
// Rotational position is tracked from time, not drawn from an RNG: the platter turns
// continuously from angle 0 at time 0, so a request reaching its track at time t waits
// until its sector comes round. Why: the result depends only on the request's own time
// and the head's state, not on how many random draws came before it (inserting one
// request does not reshuffle every later latency), and it reproduces a real cost that
// an RNG misses: a synchronous rewrite or append that arrives just after the previous
// write ended waits almost a full revolution, which is the "about one revolution per
// commit" of a disk with its write cache off. Over random requests the wait averages
// half a revolution, as the datasheets' "average latency" says.
//
// Sequential access (a request starting where the previous one ended) pays no seek.
// Sequential reads pay no rotation either (the drive's read-ahead has the data); a
// sequential write pays none if it was queued behind the previous one (the head streams
// on), but one arriving after a gap waits for its sector like any other.
//
// Write cache on: a write is acknowledged after the interface transfer while the cache
// has room; its data is written to the platter later by the head, in order, behind any
// queued work (reads are not given priority over this destaging). A flush waits for the
// head to finish everything queued (destaging included) plus the controller overhead.
// Write cache off: each write is acknowledged only after it is on the platter.
type HDD struct {
	counters
	name  string
	power Power

	capacity, bytesPerCyl, trackBytes int64
	cylinders                         float64
	rev                               time.Duration
	rate, ifaceRate                   int64   // bytes per second
	t2t, seekA, seekB                 float64 // ns; seek(d) = t2t + A*x + B*sqrt(x), x = (d-1)/N
	settle, ctrl                      time.Duration
	writeCache                        bool
	cacheBytes                        int64

	headCyl  int64
	lastEnd  int64 // device offset after the last transfer; -1 before any
	headFree time.Duration
	destage  []pendingBytes // cached writes not yet on the platter, by end time
}

type pendingBytes struct {
	end   time.Duration
	bytes int64
}

func hddClass() *class {
	return &class{
		name: "hdd",
		help: "a disk: seek curve, rotation, transfer, one head, write cache",
		fields: []field{
			{key: "capacity_gb", required: true, above: true, help: "capacity in GB (10^9 bytes)"},
			{key: "rpm", required: true, above: true, max: 1e5, help: "spindle speed"},
			{key: "cylinders", kind: kindInteger, required: true, min: 1, max: 1e7, help: "cylinders (tracks per surface) N of the seek curve"},
			{key: "seek_t2t_ms", required: true, help: "track-to-track seek"},
			{key: "seek_avg_ms", required: true, help: "average seek (read)"},
			{key: "seek_full_ms", required: true, help: "full-stroke seek"},
			{key: "seek_fit", kind: kindChoice, choices: []string{"random", "uniform"}, def: Figure{Text: "random"},
				help: "what seek_avg_ms averages over: random request pairs (datasheets) or uniform distances (the fit of docs/devices.md)"},
			{key: "write_settle_ms", help: "extra settle time of a write seek (datasheet write minus read average)"},
			{key: "transfer_mbps", required: true, above: true, help: "media transfer rate in MB/s"},
			{key: "interface_mbps", required: true, above: true, help: "host interface rate in MB/s (write-cache hits)"},
			{key: "controller_ms", required: true, help: "controller overhead per command"},
			{key: "write_cache", kind: kindBool, help: "write cache enabled"},
			{key: "cache_mb", help: "write cache size in MB"},
		},
		check: func(p *Profile) error {
			if err := p.order("seek_t2t_ms", "seek_avg_ms"); err != nil {
				return err
			}
			if err := p.order("seek_avg_ms", "seek_full_ms"); err != nil {
				return err
			}
			if p.Bool("write_cache") && p.Num("cache_mb") <= 0 {
				return fmtErr(p, "cache_mb", "field cache_mb must be > 0 when write_cache is on")
			}
			return nil
		},
		build: func(_ *builder, p *Profile, name string) (Model, error) { return NewHDD(name, p), nil },
	}
}

// NewHDD builds a disk from a checked hdd profile.
func NewHDD(name string, p *Profile) *HDD {
	ms := func(key string) float64 { return p.Num(key) * 1e6 } // in ns
	h := &HDD{
		name:       name,
		power:      p.Power(),
		capacity:   int64(math.Round(p.Num("capacity_gb") * 1e9)),
		cylinders:  p.Num("cylinders"),
		rev:        time.Duration(math.Round(60e9 / p.Num("rpm"))),
		rate:       int64(math.Round(p.Num("transfer_mbps") * 1e6)),
		ifaceRate:  int64(math.Round(p.Num("interface_mbps") * 1e6)),
		t2t:        ms("seek_t2t_ms"),
		settle:     time.Duration(math.Round(ms("write_settle_ms"))),
		ctrl:       time.Duration(math.Round(ms("controller_ms"))),
		writeCache: p.Bool("write_cache"),
		cacheBytes: int64(math.Round(p.Num("cache_mb") * 1e6)),
		lastEnd:    -1,
	}
	full, avg := ms("seek_full_ms"), ms("seek_avg_ms")
	// seek(d) = t2t + A*x + B*sqrt(x), x = (d-1)/N, so seek(1) = t2t and seek(N+1) =
	// full (A + B = full - t2t); the third condition places the average.
	if p.Text("seek_fit") == "uniform" {
		// docs/devices.md, "HDD service time": A = 4 full - 6 avg + 2 t2t,
		// B = -3 full + 6 avg - 3 t2t. The mean over distances uniform in [0, N]
		// (E[x] = 1/2, E[sqrt x] = 2/3) is avg.
		h.seekA = float64(4*full) - float64(6*avg) + float64(2*h.t2t)
		h.seekB = float64(-3*full) + float64(6*avg) - float64(3*h.t2t)
	} else {
		// The mean over the distances of random request pairs is avg, as datasheets
		// define the average seek: |X-Y| for X, Y uniform has density 2(1-x), E[x] = 1/3,
		// E[sqrt x] = 8/15, which gives A = (8 full - 15 avg + 7 t2t)/3 and
		// B = (-5 full + 15 avg - 10 t2t)/3 (the fit of Lee & Katz, SIGMETRICS 1993).
		// With the uniform fit random I/O would average 5.7 ms of seek on hdd-7200,
		// not its datasheet 8.5 ms.
		h.seekA = (float64(8*full) - float64(15*avg) + float64(7*h.t2t)) / 3
		h.seekB = (float64(-5*full) + float64(15*avg) - float64(10*h.t2t)) / 3
	}
	cyl := int64(h.cylinders)
	h.bytesPerCyl = max(1, (h.capacity+cyl-1)/cyl)
	h.trackBytes = max(1, int64(math.Round(float64(h.rate)*h.rev.Seconds())))
	return h
}

func (h *HDD) Name() string              { return h.name }
func (h *HDD) Power() Power              { return h.power }
func (h *HDD) Capacity() int64           { return h.capacity }
func (h *HDD) Revolution() time.Duration { return h.rev }

// SeekTime returns the seek time over d cylinders (0 for d = 0). A fit with B < 0 dips
// below t2t for short seeks; the result is clamped to t2t.
func (h *HDD) SeekTime(d int64) time.Duration {
	if d <= 0 {
		return 0
	}
	x := float64(d-1) / h.cylinders
	s := h.t2t + float64(h.seekA*x) + float64(h.seekB*math.Sqrt(x))
	return time.Duration(math.Round(max(s, h.t2t)))
}

// phase is the time within a revolution at which offset passes under the head.
func (h *HDD) phase(off int64) time.Duration {
	return time.Duration((off % h.trackBytes) * int64(h.rev) / h.trackBytes)
}

// rotWait is the wait at time t for offset to come under the head.
func (h *HDD) rotWait(t time.Duration, off int64) time.Duration {
	w := (h.phase(off) - t%h.rev) % h.rev
	if w < 0 {
		w += h.rev
	}
	return w
}

// mechanical runs one transfer on the head, queued FIFO, and returns its end.
func (h *HDD) mechanical(at time.Duration, off, size int64, write bool) time.Duration {
	off = wrap(off, h.capacity)
	start := max(at, h.headFree)
	seq := off == h.lastEnd
	var end time.Duration
	switch {
	case seq && !write:
		end = start + h.ctrl + xfer(size, h.rate)
	case seq && write && at <= h.headFree:
		end = start + xfer(size, h.rate)
	default:
		t := start + h.ctrl
		cyl := off / h.bytesPerCyl
		if d := abs64(cyl - h.headCyl); d > 0 {
			t += h.SeekTime(d)
			if write {
				t += h.settle
			}
		}
		t += h.rotWait(t, off)
		end = t + xfer(size, h.rate)
	}
	h.lastEnd = off + size
	h.headCyl = min((off+max(size-1, 0))/h.bytesPerCyl, int64(h.cylinders)-1)
	h.headFree = end
	h.busy.add(start, end)
	return end
}

// Submit implements Model.
func (h *HDD) Submit(at time.Duration, r Request) time.Duration {
	h.count(r)
	h.busy.advance(at)
	size := max(r.Size, 0)
	switch r.Op {
	case OpRead:
		return h.mechanical(at, r.Offset, size, false)
	case OpWrite:
		if !h.writeCache || size > h.cacheBytes {
			return h.mechanical(at, r.Offset, size, true)
		}
		room := h.roomAt(at, size)
		ack := room + h.ctrl + xfer(size, h.ifaceRate)
		h.busy.add(room, ack)
		end := h.mechanical(at, r.Offset, size, true)
		h.destage = append(h.destage, pendingBytes{end, size})
		return ack
	default:
		start := max(at, h.headFree)
		end := start + h.ctrl
		h.headFree = end
		h.busy.add(start, end)
		return end
	}
}

// roomAt is the earliest time from at when the write cache can take size more bytes.
func (h *HDD) roomAt(at time.Duration, size int64) time.Duration {
	i := 0
	for i < len(h.destage) && h.destage[i].end <= at {
		i++
	}
	h.destage = h.destage[i:]
	var dirty int64
	for _, d := range h.destage {
		dirty += d.bytes
	}
	t := at
	for _, d := range h.destage {
		if dirty+size <= h.cacheBytes {
			break
		}
		dirty -= d.bytes
		t = d.end
	}
	return t
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
