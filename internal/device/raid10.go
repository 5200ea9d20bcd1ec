package device

import (
	"fmt"
	"math"
	"time"
)

// RAID10 stripes over mirrored pairs (docs/devices.md, "Caches and tiers": reads from
// either mirror, writes to both, stripes spread a request). Chunk c of stripe_kib goes
// to pair c mod P at row c / P. A read goes to the mirror whose last request ends first
// (ties alternate), a write to both; a request completes when its last piece does. A
// flush goes to every member.
type RAID10 struct {
	counters
	name    string
	power   Power
	members []Model
	stripe  int64
	pairs   int64
	lastEnd []time.Duration // per member: completion of its latest request
	turn    []bool          // per pair: which mirror wins a tie
}

func raid10Class() *class {
	return &class{
		name:      "raid10",
		help:      "RAID 10 of N copies of a device: mirrors and stripes",
		syntax:    "raid10(INNER[,devices=4,stripe=64KiB])",
		composite: true,
		fields: []field{
			{key: "inner", kind: kindSpec, required: true, help: "the member device"},
			{key: "devices", kind: kindInteger, min: 2, max: 1024, def: Figure{Value: 4}, help: "number of members (even)"},
			{key: "stripe_kib", min: 0.5, def: Figure{Value: 64}, help: "stripe unit (chunk)"},
		},
		check: func(p *Profile) error {
			if n := p.Num("devices"); math.Mod(n, 2) != 0 {
				return fmtErr(p, "devices", "field devices must be even (mirrored pairs), got %v", n)
			}
			return nil
		},
		build: func(b *builder, p *Profile, name string) (Model, error) {
			n := int(p.Num("devices"))
			members := make([]Model, n)
			for i := range members {
				m, err := b.build(p.Text("inner"))
				if err != nil {
					return nil, err
				}
				members[i] = m
			}
			return NewRAID10(name, p, members)
		},
	}
}

// NewRAID10 builds a RAID 10 from a checked raid10 profile and its members; members
// 2i and 2i+1 are mirrors.
func NewRAID10(name string, p *Profile, members []Model) (*RAID10, error) {
	if len(members) < 2 || len(members)%2 != 0 {
		return nil, fmt.Errorf("raid10 needs an even number of members, got %d", len(members))
	}
	return &RAID10{
		name:    name,
		power:   p.Power(),
		members: members,
		stripe:  max(1, int64(math.Round(p.Num("stripe_kib")*1024))),
		pairs:   int64(len(members) / 2),
		lastEnd: make([]time.Duration, len(members)),
		turn:    make([]bool, len(members)/2),
	}, nil
}

func (r *RAID10) Name() string     { return r.name }
func (r *RAID10) Power() Power     { return r.power }
func (r *RAID10) Members() []Model { return r.members }
func (r *RAID10) Capacity() int64  { return capacityOf(r.members[0]) * r.pairs }

// Submit implements Model.
func (r *RAID10) Submit(at time.Duration, req Request) time.Duration {
	r.count(req)
	r.busy.advance(at)
	end := r.submit(at, req)
	r.busy.add(at, end)
	return end
}

func (r *RAID10) submit(at time.Duration, req Request) time.Duration {
	size := max(req.Size, 0)
	done := at
	if req.Op == OpFlush {
		for i, m := range r.members {
			r.lastEnd[i] = max(r.lastEnd[i], m.Submit(at, req))
			done = max(done, r.lastEnd[i])
		}
		return done
	}
	for pos := req.Offset; pos < req.Offset+size; {
		chunk := pos / r.stripe
		n := min((chunk+1)*r.stripe, req.Offset+size) - pos
		pair := chunk % r.pairs
		part := req
		part.Offset = (chunk/r.pairs)*r.stripe + pos%r.stripe
		part.Size = n
		a, b := int(2*pair), int(2*pair+1)
		if req.Op == OpWrite {
			r.lastEnd[a] = r.members[a].Submit(at, part)
			r.lastEnd[b] = r.members[b].Submit(at, part)
			done = latest(done, r.lastEnd[a], r.lastEnd[b])
		} else {
			pick := a
			switch {
			case r.lastEnd[b] < r.lastEnd[a]:
				pick = b
			case r.lastEnd[a] == r.lastEnd[b]:
				if r.turn[pair] {
					pick = b
				}
				r.turn[pair] = !r.turn[pair]
			}
			r.lastEnd[pick] = r.members[pick].Submit(at, part)
			done = max(done, r.lastEnd[pick])
		}
		pos += n
	}
	return done
}
