package device

import (
	"container/heap"
	"math"
	"time"
)

// SSD is a flash (or DRAM) device with K = channels x dies parallel servers, following
// docs/devices.md, "SSD service time". A request passes three stages:
//
//   - the controller (one server): firmware_us per request;
//   - the dies (K servers): per page-sized chunk, read_us or program_us (times the write
//     amplification for non-sequential writes) plus the chunk over its channel;
//   - the host interface (one server): size / interface rate; before the controller for
//     writes, after the dies for reads.
//
// A read's chunk goes to the die its page lives on (page number mod K: a static
// striping, so random reads at high queue depth collide as they do on real drives); a
// written chunk goes to the die that frees first (a log-structured FTL writes wherever
// it can). With a DRAM write buffer a write is acknowledged once the controller has it
// and the buffer has room; programs run behind. A flush waits until every program is
// done, unless the drive has power-loss protection (its buffer is durable). Erases are
// not modelled separately: steady-state write amplification stands for them.
type SSD struct {
	counters
	name  string
	power Power

	capacity, page, bufBytes int64
	fw, tRead, tProg, flush  time.Duration
	wa                       float64
	chRate, ifRate           int64
	plp                      bool

	dies         []time.Duration // when each die is free
	ctrlFree     time.Duration
	iface        timeline // the host interface
	buffered     endHeap  // buffered chunks not yet programmed
	bufDirty     int64
	lastProg     time.Duration // end of the latest program
	lastAck      time.Duration
	lastWriteEnd int64
}

func ssdClass() *class {
	return &class{
		name: "ssd",
		help: "flash or DRAM SSD: parallel dies, read/program times, write buffer",
		fields: []field{
			{key: "capacity_gb", required: true, above: true, help: "capacity in GB (10^9 bytes)"},
			{key: "channels", kind: kindInteger, required: true, min: 1, max: 256, help: "flash channels"},
			{key: "dies_per_channel", kind: kindInteger, required: true, min: 1, max: 256, help: "dies per channel; channels x dies = parallel servers"},
			{key: "page_kib", min: 0.5, def: Figure{Value: 4}, help: "striping unit (flash page) in KiB"},
			{key: "firmware_us", required: true, help: "controller time per request"},
			{key: "read_us", required: true, help: "array read time per page (t_read)"},
			{key: "program_us", required: true, help: "page program time (t_program)"},
			{key: "channel_mbps", required: true, above: true, help: "bandwidth of one channel in MB/s"},
			{key: "interface_mbps", required: true, above: true, help: "host interface rate in MB/s"},
			{key: "write_buffer_mib", help: "DRAM write buffer in MiB (0: none)"},
			{key: "write_amplification", min: 1, max: 100, def: Figure{Value: 1}, help: "steady-state write amplification of random writes"},
			{key: "flush_us", help: "time of a flush command once the programs are done"},
			{key: "power_loss_protection", kind: kindBool, help: "buffer is durable: a flush need not wait for programs"},
		},
		build: func(_ *builder, p *Profile, name string) (Model, error) { return NewSSD(name, p), nil },
	}
}

// NewSSD builds an SSD from a checked ssd profile.
func NewSSD(name string, p *Profile) *SSD {
	us := func(key string) time.Duration { return time.Duration(math.Round(p.Num(key) * 1e3)) }
	s := &SSD{
		name:         name,
		power:        p.Power(),
		capacity:     int64(math.Round(p.Num("capacity_gb") * 1e9)),
		page:         max(1, int64(math.Round(p.Num("page_kib")*1024))),
		bufBytes:     int64(math.Round(p.Num("write_buffer_mib") * (1 << 20))),
		fw:           us("firmware_us"),
		tRead:        us("read_us"),
		tProg:        us("program_us"),
		flush:        us("flush_us"),
		wa:           p.Num("write_amplification"),
		chRate:       int64(math.Round(p.Num("channel_mbps") * 1e6)),
		ifRate:       int64(math.Round(p.Num("interface_mbps") * 1e6)),
		plp:          p.Bool("power_loss_protection"),
		dies:         make([]time.Duration, int(p.Num("channels")*p.Num("dies_per_channel"))),
		lastWriteEnd: -1,
	}
	return s
}

func (s *SSD) Name() string    { return s.name }
func (s *SSD) Power() Power    { return s.power }
func (s *SSD) Capacity() int64 { return s.capacity }

// Servers is the number of parallel dies.
func (s *SSD) Servers() int { return len(s.dies) }

// Submit implements Model.
func (s *SSD) Submit(at time.Duration, r Request) time.Duration {
	s.count(r)
	s.busy.advance(at)
	size := max(r.Size, 0)
	off := wrap(r.Offset, s.capacity)
	switch r.Op {
	case OpRead:
		cStart := max(at, s.ctrlFree)
		s.ctrlFree = cStart + s.fw
		done := s.ctrlFree
		s.chunks(off, size, func(page, n int64) {
			d := int(page % int64(len(s.dies)))
			start := max(s.ctrlFree, s.dies[d])
			s.dies[d] = start + s.tRead + xfer(n, s.chRate)
			done = max(done, s.dies[d])
		})
		end := s.iface.reserve(at, done, xfer(size, s.ifRate))
		s.busy.add(cStart, end)
		return end
	case OpWrite:
		inEnd := s.iface.reserve(at, at, xfer(size, s.ifRate))
		iStart := inEnd - xfer(size, s.ifRate)
		cStart := max(inEnd, s.ctrlFree)
		s.ctrlFree = cStart + s.fw
		buffered := s.bufBytes > 0 && size <= s.bufBytes
		from := s.ctrlFree
		if buffered {
			from = s.roomAt(s.ctrlFree, size)
		}
		prog := s.tProg
		if off != s.lastWriteEnd {
			prog = time.Duration(math.Round(float64(s.tProg) * s.wa))
		}
		s.lastWriteEnd = off + size
		done := from
		s.chunks(off, size, func(_, n int64) {
			d := s.freestDie()
			start := max(from, s.dies[d])
			s.dies[d] = start + prog + xfer(n, s.chRate)
			s.busy.add(start, s.dies[d])
			done = max(done, s.dies[d])
			if buffered {
				heap.Push(&s.buffered, pendingBytes{s.dies[d], n})
				s.bufDirty += n
			}
		})
		s.lastProg = max(s.lastProg, done)
		ack := done
		if buffered {
			ack = from
		}
		s.lastAck = max(s.lastAck, ack)
		s.busy.add(iStart, ack)
		return ack
	default:
		start := max(at, s.lastAck)
		if !s.plp {
			start = max(start, s.lastProg)
		}
		s.busy.add(start, start+s.flush)
		return start + s.flush
	}
}

// chunks calls fn for each page-sized piece of [off, off+size).
func (s *SSD) chunks(off, size int64, fn func(page, n int64)) {
	for pos := off; pos < off+size; {
		page := pos / s.page
		n := min((page+1)*s.page, off+size) - pos
		fn(page, n)
		pos += n
	}
}

func (s *SSD) freestDie() int {
	best := 0
	for i, t := range s.dies {
		if t < s.dies[best] {
			best = i
		}
	}
	return best
}

// roomAt is the earliest time from at when the write buffer can take size more bytes.
func (s *SSD) roomAt(at time.Duration, size int64) time.Duration {
	for s.buffered.Len() > 0 && s.buffered[0].end <= at {
		s.bufDirty -= heap.Pop(&s.buffered).(pendingBytes).bytes
	}
	t := at
	for s.bufDirty+size > s.bufBytes && s.buffered.Len() > 0 {
		p := heap.Pop(&s.buffered).(pendingBytes)
		s.bufDirty -= p.bytes
		t = max(t, p.end)
	}
	return t
}

// endHeap is a min-heap of pending chunks by end time.
type endHeap []pendingBytes

func (h endHeap) Len() int           { return len(h) }
func (h endHeap) Less(i, j int) bool { return h[i].end < h[j].end }
func (h endHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)        { *h = append(*h, x.(pendingBytes)) }
func (h *endHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
