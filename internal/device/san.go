package device

import (
	"math"
	"time"
)

// SAN puts a Fibre Channel link and an array controller in front of a device
// (docs/devices.md, FC SAN link row). The link is full duplex: one server per direction
// at link_mbps (payload rate: 4GFC ~400 MB/s, 8GFC ~800 MB/s, 16GFC ~1.6 GB/s). Each
// crossing of the fabric costs switch_us; the controller adds controller_us per command
// (0.1-0.5 ms in docs/devices.md; an assumption, so it is a field).
//
//	read:  switch + controller + inner read, then the data over the link + switch
//	write: the data over the link + switch + controller + inner write, then switch
//	flush: switch + controller + inner flush + switch
//
// A san profile with power_scope: system carries the watts of the whole storage system
// (as the SAN study measured) in place of its members'.
type SAN struct {
	counters
	name           string
	power          Power
	inner          Model
	link           int64 // bytes per second
	ctrl, sw       time.Duration
	txFree, rxFree time.Duration
}

func sanClass() *class {
	return &class{
		name:      "san",
		help:      "a Fibre Channel link plus an array controller around a device",
		syntax:    "san(INNER[,link=8gfc,controller=200us,switch=1us])",
		composite: true,
		fields: []field{
			{key: "inner", kind: kindSpec, required: true, help: "the device in the array"},
			{key: "link_mbps", above: true, def: Figure{Value: 800, Source: "8GFC ~800 MB/s (docs/devices.md)"}, help: "link payload rate per direction (4gfc, 8gfc, 16gfc or MB/s)"},
			{key: "controller_us", def: Figure{Value: 200, Source: "assumption: array controller 0.1-0.5 ms (docs/devices.md)"}, help: "array controller latency per command"},
			{key: "switch_us", def: Figure{Value: 1, Source: "FC switch < 1 us (docs/devices.md)"}, help: "fabric latency per crossing"},
		},
		build: func(b *builder, p *Profile, name string) (Model, error) {
			inner, err := b.build(p.Text("inner"))
			if err != nil {
				return nil, err
			}
			return NewSAN(name, p, inner), nil
		},
	}
}

// NewSAN builds a SAN from a checked san profile around inner.
func NewSAN(name string, p *Profile, inner Model) *SAN {
	us := func(key string) time.Duration { return time.Duration(math.Round(p.Num(key) * 1e3)) }
	return &SAN{
		name:  name,
		power: p.Power(),
		inner: inner,
		link:  int64(math.Round(p.Num("link_mbps") * 1e6)),
		ctrl:  us("controller_us"),
		sw:    us("switch_us"),
	}
}

func (s *SAN) Name() string     { return s.name }
func (s *SAN) Power() Power     { return s.power }
func (s *SAN) Members() []Model { return []Model{s.inner} }
func (s *SAN) Capacity() int64  { return capacityOf(s.inner) }

// Submit implements Model.
func (s *SAN) Submit(at time.Duration, r Request) time.Duration {
	s.count(r)
	s.busy.advance(at)
	size := max(r.Size, 0)
	var end time.Duration
	switch r.Op {
	case OpRead:
		done := s.inner.Submit(at+s.sw+s.ctrl, r)
		start := max(done, s.rxFree)
		s.rxFree = start + xfer(size, s.link)
		end = s.rxFree + s.sw
	case OpWrite:
		start := max(at, s.txFree)
		s.txFree = start + xfer(size, s.link)
		end = s.inner.Submit(s.txFree+s.sw+s.ctrl, r) + s.sw
	default:
		end = s.inner.Submit(at+s.sw+s.ctrl, r) + s.sw
	}
	s.busy.add(at, end)
	return end
}
