package dbgen

import (
	"encoding/binary"
	"runtime"
	"sync"
	"unsafe"
)

// Parallel pool construction.
//
// The pool is one sequential walk of the text stream, but a sentence depends
// only on the stream state where it starts. A helper that starts at an
// arbitrary draw index D and treats it as a sentence start produces a chain of
// sentence starts that, like two walkers in Kruskal's count, almost always
// joins the true chain within a few dozen sentences. Once both chains share a
// sentence start, everything after it is identical. Each segment therefore
// records its sentence starts near the next segment's D; the first common
// start splices the two. If no common start is found the pool is rebuilt
// sequentially, so the result is always exactly dbgen's.

// spliceWindow is how many draws are searched for a common sentence start
// (a variable so tests can force the sequential fallback).
var spliceWindow int64 = 1 << 17

type sentStart struct {
	draw int64
	tok  int // position in the segment's pieces
	off  int // byte offset in the segment's text
}

type poolSegment struct {
	mem   []byte   // the allocation behind tok
	tok   []uint16 // piece numbers
	bytes int      // text length of tok
	head  []sentStart
	tail  []sentStart
	seed  int64 // stream state after the last sentence
	draws int64
}

func tokensOf(b []byte) []uint16 { return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(b)/2) }

// run generates sentences until one starts at or after stopDraw and at least
// minBytes are written, recording sentence starts near the segment's first
// draw (head) and in [recLo, recHi) (tail).
func (s *poolSegment) run(g *sentenceGen, startDraw, stopDraw int64, minBytes int, recLo, recHi int64) {
	lens := g.voc.pieces
	pos := len(s.tok)
	tok := s.tok[:cap(s.tok)]
	for g.draws < stopDraw || s.bytes < minBytes {
		if g.draws < startDraw+spliceWindow {
			s.head = append(s.head, sentStart{g.draws, pos, s.bytes})
		}
		if g.draws >= recLo && g.draws < recHi {
			s.tail = append(s.tail, sentStart{g.draws, pos, s.bytes})
		}
		if len(tok)-pos < sentenceSlack {
			nb := allocPoolMem(4 * len(tok))
			nt := tokensOf(nb)
			copy(nt, tok[:pos])
			freePoolMem(s.mem)
			s.mem, tok = nb, nt
		}
		end := g.sentence(tok, pos)
		for _, id := range tok[pos:end] {
			s.bytes += int(lens[id].n)
		}
		pos = end
	}
	s.tok = tok[:pos]
	s.seed, s.draws = g.seed, g.draws
}

func newSegment(tokHint int) poolSegment {
	mem := allocPoolMem(2 * (tokHint + sentenceSlack))
	return poolSegment{mem: mem, tok: tokensOf(mem)[:0]}
}

// runSegment generates from draw index startDraw (see run).
func runSegment(base *sentenceGen, startDraw, stopDraw int64, minBytes int, recLo, recHi int64, tokHint int) poolSegment {
	g := *base
	g.seed = skip(streamSeed[sText], startDraw)
	g.draws = startDraw
	s := newSegment(tokHint)
	s.run(&g, startDraw, stopDraw, minBytes, recLo, recHi)
	return s
}

// fillPoolParallel builds the pool using up to n goroutines.
func (g *sentenceGen) fillPoolParallel(size, n int) *textPoolT {
	if n < 2 || size < 64<<20 {
		return sequentialPool(g, size)
	}
	// estimate draws and pieces per byte from a short sequential sample
	sample := runSegment(g, 0, 0, 1<<20, 0, 0, 1<<19)
	drawsPerByte := float64(sample.draws) / float64(sample.bytes)
	tokPerByte := float64(len(sample.tok)) / float64(sample.bytes)
	freePoolMem(sample.mem)
	total := int64(drawsPerByte * float64(size))
	bounds := make([]int64, n+1)
	for k := 0; k <= n; k++ {
		bounds[k] = total * int64(k) / int64(n)
	}
	segs := make([]poolSegment, n)
	hint := int(tokPerByte * float64(size/n+size/50))
	var wg sync.WaitGroup
	for k := 0; k < n; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			stop := bounds[k+1] + spliceWindow
			recLo, recHi := bounds[k+1], bounds[k+1]+spliceWindow
			if k == n-1 {
				stop = bounds[k+1] + bounds[k+1]/100
				recLo, recHi = 0, 0
			}
			segs[k] = runSegment(g, bounds[k], stop, 0, recLo, recHi, hint)
		}(k)
	}
	wg.Wait()

	// Splice: a part keeps the pieces after its cut (its successor's text,
	// identical from the common sentence start on) so a comment that starts
	// near its end decodes without crossing into the next part.
	p := &textPoolT{size: size, voc: g.voc}
	start, baseTok, baseByte := 0, 0, 0
	for k := 1; k < n; k++ {
		cutPrev, cutOwn, ok := findSplice(segs[k-1].tail, segs[k].head)
		if !ok || segs[k-1].bytes-cutPrev.off < poolOverlap {
			for _, s := range segs {
				freePoolMem(s.mem)
			}
			return sequentialPool(g, size)
		}
		p.parts = append(p.parts, poolPart{start: start, length: cutPrev.off - baseByte, tok: segs[k-1].tok[baseTok:]})
		p.mem = append(p.mem, segs[k-1].mem)
		start += cutPrev.off - baseByte
		baseTok, baseByte = cutOwn.tok, cutOwn.off
	}
	last := &segs[n-1]
	if start+last.bytes-baseByte < size+poolOverlap {
		// top up from the last segment's state
		h := *g
		h.seed, h.draws = last.seed, last.draws
		last.run(&h, 0, 0, size+poolOverlap-start+baseByte, 0, 0)
	}
	p.parts = append(p.parts, poolPart{start: start, length: size - start, tok: last.tok[baseTok:]})
	p.mem = append(p.mem, last.mem)
	p.buildIndex()
	return p
}

const poolOverlap = 4096

func sequentialPool(g *sentenceGen, size int) *textPoolT {
	s := newSegment(size / 5)
	s.run(g, 0, 0, size, 0, 0)
	p := &textPoolT{size: size, voc: g.voc, parts: []poolPart{{start: 0, length: size, tok: s.tok}}, mem: [][]byte{s.mem}}
	p.buildIndex()
	return p
}

// textPoolT is the pool: parts of pieces, each with an index.
type textPoolT struct {
	size  int
	voc   *vocabulary
	parts []poolPart
	mem   [][]byte // allocations behind the parts
}

// A poolPart covers pool bytes [start, start+length). tok starts at the
// part's first byte (a sentence start) and runs on past its end; idx[k]
// locates local byte 256*k: the piece that holds it (idx>>5) and the byte
// within that piece (idx&31).
type poolPart struct {
	start, length int
	tok           []uint16
	idx           []uint32
}

// indexShift sets the index's step: every 256 bytes, 1.2M entries (5 MiB)
// that mostly stay in the CPU's caches. Finer steps mean fewer pieces to skip
// but a second cache miss per comment, which costs more.
const indexShift = 8

func (p *textPoolT) buildIndex() {
	var wg sync.WaitGroup
	for i := range p.parts {
		pt := &p.parts[i]
		mem := allocPoolMem(4 * ((pt.length >> indexShift) + 1))
		p.mem = append(p.mem, mem)
		pt.idx = unsafe.Slice((*uint32)(unsafe.Pointer(&mem[0])), len(mem)/4)
		wg.Add(1)
		go func() {
			defer wg.Done()
			pieces := p.voc.pieces
			off, k := 0, 0
			for t, id := range pt.tok {
				n := int(pieces[id].n)
				for k<<indexShift < off+n {
					if k >= len(pt.idx) {
						return
					}
					pt.idx[k] = uint32(t)<<5 | uint32(k<<indexShift-off)
					k++
				}
				off += n
			}
		}()
	}
	wg.Wait()
}

// release frees the pool's memory; the pool must not be used afterwards.
func (p *textPoolT) release() {
	for _, m := range p.mem {
		freePoolMem(m)
	}
	p.mem, p.parts = nil, nil
}

// textRef is a comment: n bytes of the pool from off.
type textRef struct{ off, n int32 }

// part returns the part holding pool byte off.
func (p *textPoolT) part(off int) *poolPart {
	i := len(p.parts) - 1
	for i > 0 && p.parts[i].start > off {
		i--
	}
	return &p.parts[i]
}

// appendText appends pool[off:off+n] to b. It writes whole pieces with
// 32-byte stores into b's spare room, then moves the wanted bytes into place.
func (p *textPoolT) appendText(b []byte, t textRef) []byte {
	off, n := int(t.off), int(t.n)
	pt := p.part(off)
	lo := off - pt.start
	e := pt.idx[lo>>indexShift]
	tk := int(e >> 5)
	skip := int(e&31) + lo&(1<<indexShift-1)
	// skip whole pieces by their lengths; only the last one is written
	lens := p.voc.lens
	for skip >= int(lens[pt.tok[tk]]) {
		skip -= int(lens[pt.tok[tk]])
		tk++
	}
	need := skip + n
	l := len(b)
	if cap(b)-l < need+32 {
		nb := make([]byte, l, 2*cap(b)+need+64)
		copy(nb, b)
		b = nb
	}
	dst := b[l : l+need+32]
	pieces := p.voc.pieces
	w := 0
	for w < need {
		pc := &pieces[pt.tok[tk]]
		tk++
		_ = dst[w+31]
		binary.LittleEndian.PutUint64(dst[w:], pc.q[0])
		binary.LittleEndian.PutUint64(dst[w+8:], pc.q[1])
		binary.LittleEndian.PutUint64(dst[w+16:], pc.q[2])
		binary.LittleEndian.PutUint64(dst[w+24:], pc.q[3])
		w += int(pc.n)
	}
	copy(dst, dst[skip:need])
	return b[:l+n]
}

// prefetch loads the index entries and then the first pieces of a block's
// comments. Comments start at random places in 100 MiB of pieces, so nearly
// every one is a cache miss; loading all index entries in one loop and all
// pieces in a second lets the CPU overlap the misses instead of taking them
// one by one while formatting. ents is scratch space of at least len(refs).
func (p *textPoolT) prefetch(refs []textRef, ents []uint32) byte {
	ents = ents[:len(refs)]
	for i, t := range refs {
		pt := p.part(int(t.off))
		ents[i] = pt.idx[(int(t.off)-pt.start)>>indexShift]
	}
	var sink byte
	for i, t := range refs {
		// the skipped pieces and the comment's own span about two cache lines
		pt := p.part(int(t.off))
		tk := int(ents[i] >> 5)
		sink += byte(pt.tok[tk]) + byte(pt.tok[tk+32])
	}
	return sink
}

// slice returns a copy of pool[off:off+n] (tests).
func (p *textPoolT) slice(off, n int) []byte {
	return p.appendText(nil, textRef{int32(off), int32(n)})
}

// bytes returns the whole pool (tests only).
func (p *textPoolT) bytes() []byte {
	out := make([]byte, 0, p.size+64)
	for off := 0; off < p.size; off += 256 {
		out = p.appendText(out, textRef{int32(off), int32(min(256, p.size-off))})
	}
	return out
}

// findSplice returns the first sentence start the previous and the current
// segment share, as positions in each.
func findSplice(prev, own []sentStart) (sentStart, sentStart, bool) {
	i, j := 0, 0
	for i < len(prev) && j < len(own) {
		switch {
		case prev[i].draw == own[j].draw:
			return prev[i], own[j], true
		case prev[i].draw < own[j].draw:
			i++
		default:
			j++
		}
	}
	return sentStart{}, sentStart{}, false
}

func poolWorkers() int {
	n := runtime.GOMAXPROCS(0)
	if n > 8 {
		n = 8
	}
	return n
}
