package postmark

import "math/bits"

// freeSlots is the set of free slots of the file table, to find the first one from
// the start as Postmark's find_free_file does, without its walk over the table.
// Postmark looks at every slot from the first; a new file always takes the first free
// one, so the table fills from its start, and after the first 2 x Files creates each
// create walks past about Files used slots: at 10,000 files most of the CPU the
// generator spends (and, in Postmark, tens of microseconds a create). Here a bit per
// slot, and a bit per word of those saying it has a free slot, find it in a few
// words.
type freeSlots struct {
	words []uint64 // bit i%64 of word i/64: slot i is free
	some  []uint64 // bit w%64 of some[w/64]: words[w] is not 0
	// low is where first starts: some[:low] are all 0.
	low int
}

func newFreeSlots(n int) freeSlots {
	f := freeSlots{words: make([]uint64, (n+63)/64)}
	f.some = make([]uint64, (len(f.words)+63)/64)
	for i := range n {
		f.free(i)
	}
	return f
}

// free marks slot i free.
func (f *freeSlots) free(i int) {
	w := i / 64
	f.words[w] |= 1 << (i % 64)
	f.some[w/64] |= 1 << (w % 64)
	f.low = min(f.low, w/64)
}

// take marks slot i used.
func (f *freeSlots) take(i int) {
	w := i / 64
	if f.words[w] &^= 1 << (i % 64); f.words[w] == 0 {
		f.some[w/64] &^= 1 << (w % 64)
	}
}

// first is the lowest free slot, -1 when none is.
func (f *freeSlots) first() int {
	for ; f.low < len(f.some); f.low++ {
		if s := f.some[f.low]; s != 0 {
			w := f.low*64 + bits.TrailingZeros64(s)
			return w*64 + bits.TrailingZeros64(f.words[w])
		}
	}
	return -1
}
