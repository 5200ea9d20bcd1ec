package dbgen

import (
	"runtime"
	"sync"
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
	off  int
}

type poolSegment struct {
	mem   []byte // the whole allocation
	buf   []byte
	head  []sentStart // starts with draw in [startDraw, startDraw+spliceWindow)
	tail  []sentStart // starts with draw in [recLo, recHi)
	seed  int64       // state after the last sentence
	draws int64
}

// runSegment generates sentences from draw index startDraw until a sentence
// starts at or after stopDraw (and at least minBytes are written), recording
// sentence starts near its own start and in [recLo, recHi).
func runSegment(base *sentenceGen, startDraw, stopDraw int64, minBytes int, recLo, recHi int64, sizeHint int) poolSegment {
	g := *base
	g.seed = skip(streamSeed[sText], startDraw)
	g.draws = startDraw
	buf := allocPoolMem(sizeHint + sentenceSlack)
	pos := 0
	var head, tail []sentStart
	for g.draws < stopDraw || pos < minBytes {
		if g.draws < startDraw+spliceWindow {
			head = append(head, sentStart{g.draws, pos})
		}
		if g.draws >= recLo && g.draws < recHi {
			tail = append(tail, sentStart{g.draws, pos})
		}
		if len(buf)-pos < sentenceSlack {
			nb := allocPoolMem(2 * len(buf))
			copy(nb, buf[:pos])
			freePoolMem(buf)
			buf = nb
		}
		pos = g.sentence(buf, pos)
		buf[pos] = ' '
		pos++
	}
	return poolSegment{mem: buf, buf: buf[:pos], head: head, tail: tail, seed: g.seed, draws: g.draws}
}

// fillPoolParallel builds the same bytes as fillPool using up to n goroutines.
func (g *sentenceGen) fillPoolParallel(size, n int) *textPoolT {
	if n < 2 || size < 64<<20 {
		return sequentialPool(g, size)
	}
	// estimate draws per byte from a short sequential sample
	sample := runSegment(g, 0, 0, 1<<20, 0, 0, 1<<20)
	perByte := float64(sample.draws) / float64(len(sample.buf))
	freePoolMem(sample.mem)
	total := int64(perByte * float64(size))
	bounds := make([]int64, n+1)
	for k := 0; k <= n; k++ {
		bounds[k] = total * int64(k) / int64(n)
	}
	segs := make([]poolSegment, n)
	hint := size/n + size/20
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
	poolTrace("segments done")

	// Splice: each piece keeps poolOverlap bytes of its successor so any
	// comment (at most a few hundred bytes) lies inside a single piece.
	p := &textPoolT{size: size}
	for _, s := range segs {
		p.mem = append(p.mem, s.mem)
	}
	start, base := 0, 0 // piece start in the pool, and its offset in its segment
	for k := 1; k < n; k++ {
		cutPrev, cutOwn, ok := findSplice(segs[k-1].tail, segs[k].head)
		if !ok || cutOwn+poolOverlap > len(segs[k].buf) {
			p.release()
			return sequentialPool(g, size)
		}
		buf := append(segs[k-1].buf[base:cutPrev], segs[k].buf[cutOwn:cutOwn+poolOverlap]...)
		p.pieces = append(p.pieces, poolPiece{start: start, buf: buf})
		start += cutPrev - base
		base = cutOwn
	}
	last := segs[n-1]
	lastBuf := last.buf[base:]
	if start+len(lastBuf) < size {
		// top up from the last segment's state
		h := *g
		h.seed, h.draws = last.seed, last.draws
		pos := len(lastBuf)
		need := size - start
		b := allocPoolMem(need + sentenceSlack)
		p.mem = append(p.mem, b)
		copy(b, lastBuf)
		for pos < need {
			pos = h.sentence(b, pos)
			b[pos] = ' '
			pos++
		}
		lastBuf = b[:pos]
	}
	if start+len(lastBuf) > size {
		lastBuf = lastBuf[:size-start]
	}
	p.pieces = append(p.pieces, poolPiece{start: start, buf: lastBuf})
	return p
}

const poolOverlap = 4096

func sequentialPool(g *sentenceGen, size int) *textPoolT {
	b := g.fillPool(size)
	return &textPoolT{size: size, pieces: []poolPiece{{start: 0, buf: b}}, mem: [][]byte{b}}
}

// textPoolT is the pool, possibly held as a few overlapping pieces.
type textPoolT struct {
	size   int
	pieces []poolPiece
	mem    [][]byte // allocations backing the pieces
}

// release frees the pool's memory; the pool must not be used afterwards.
func (p *textPoolT) release() {
	for _, m := range p.mem {
		freePoolMem(m)
	}
	p.mem, p.pieces = nil, nil
}

type poolPiece struct {
	start int
	buf   []byte
}

// slice returns pool[off:off+n]; n must not exceed poolOverlap.
func (p *textPoolT) slice(off, n int) []byte {
	ps := p.pieces
	i := len(ps) - 1
	for i > 0 && ps[i].start > off {
		i--
	}
	o := off - ps[i].start
	return ps[i].buf[o : o+n]
}

// bytes returns the whole pool as one slice (tests only; copies).
func (p *textPoolT) bytes() []byte {
	out := make([]byte, 0, p.size)
	for i, pc := range p.pieces {
		end := len(pc.buf)
		if i+1 < len(p.pieces) {
			end = p.pieces[i+1].start - pc.start
		}
		out = append(out, pc.buf[:end]...)
	}
	return out
}

// findSplice returns the byte offsets in the previous and the current segment
// of their first common sentence start.
func findSplice(prev, own []sentStart) (int, int, bool) {
	i, j := 0, 0
	for i < len(prev) && j < len(own) {
		switch {
		case prev[i].draw == own[j].draw:
			return prev[i].off, own[j].off, true
		case prev[i].draw < own[j].draw:
			i++
		default:
			j++
		}
	}
	return 0, 0, false
}

func poolWorkers() int {
	n := runtime.GOMAXPROCS(0)
	if n > 8 {
		n = 8
	}
	return n
}

var poolTrace = func(string) {}
