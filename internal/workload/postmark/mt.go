package postmark

// mt19937 is the Mersenne Twister MT19937 of Matsumoto and Nishimura ("Mersenne
// Twister: A 623-dimensionally equidistributed uniform pseudo-random number
// generator", ACM TOMACS 8(1), 1998): a state of n 32-bit words, a twist that mixes
// the top bit of one word with the low 31 bits of the next and folds in the word m
// places ahead, and a tempering of each output. Postmark 1.5 draws every random
// number from it, so reproducing its operation counts needs this generator exactly,
// with Postmark's way of seeding it (seedPostmark).
type mt19937 struct {
	state [mtN]uint32
	next  int // index of the next word to temper; mtN means twist first
	// twists counts the twists so far: the numbers drawn are twists x n, less the
	// n - next not yet drawn (drawn), which measures how far working a run out has got.
	twists int64
}

const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df // the twist's constant vector a
	mtUpperMask = 0x80000000 // the top w-r bits (w=32, r=31)
	mtLowerMask = 0x7fffffff
)

// seedPostmark fills the state as the 1999 reference code's sgenrand does, which is
// what Postmark calls with its seed: each word takes its high half from one step of
// the linear congruential generator x' = 69069x + 1 (mod 2^32) and its low half from
// the high half of the next step.
func (g *mt19937) seedPostmark(seed uint32) {
	x := seed
	for i := range g.state {
		w := x & 0xffff0000
		x = 69069*x + 1
		w |= (x & 0xffff0000) >> 16
		x = 69069*x + 1
		g.state[i] = w
	}
	g.next, g.twists = mtN, 0
}

// seedStandard fills the state as the 2002 reference code's init_genrand does, which
// C++ specifies for std::mt19937 ([rand.eng.mers]): x_0 = seed,
// x_i = 1812433253 (x_{i-1} xor (x_{i-1} >> 30)) + i. Postmark does not use it; it
// lets the tests check the twist and the tempering against the C++ standard's value.
func (g *mt19937) seedStandard(seed uint32) {
	g.state[0] = seed
	for i := 1; i < mtN; i++ {
		p := g.state[i-1]
		g.state[i] = 1812433253*(p^(p>>30)) + uint32(i)
	}
	g.next, g.twists = mtN, 0
}

// twist regenerates all n words of the state: word k from words k, k+1 and k+m,
// indices modulo n, in three loops (as the reference code has them) so that no index
// needs a division: k+m wraps from k = n-m on, k+1 at the last word.
func (g *mt19937) twist() {
	s := &g.state
	k := 0
	for ; k < mtN-mtM; k++ {
		s[k] = twistWord(s[k], s[k+1], s[k+mtM])
	}
	for ; k < mtN-1; k++ {
		s[k] = twistWord(s[k], s[k+1], s[k+mtM-mtN])
	}
	s[mtN-1] = twistWord(s[mtN-1], s[0], s[mtM-1])
	g.next = 0
	g.twists++
}

// twistWord is the new word from the word, the next one and the one m places ahead:
// the top bit of the first and the low 31 bits of the second, shifted right, with
// the constant vector a folded in when the low bit was 1, and the far word added.
func twistWord(w, next, far uint32) uint32 {
	y := w&mtUpperMask | next&mtLowerMask
	v := far ^ y>>1
	if y&1 != 0 {
		v ^= mtMatrixA
	}
	return v
}

// discard skips the next n outputs: the state advances as n draws would advance it,
// without tempering a word. The numbers Postmark draws for its source text cost a
// simulation, which never writes a file, only the twists.
func (g *mt19937) discard(n int) {
	for n > 0 {
		if g.next >= mtN {
			g.twist()
		}
		k := min(n, mtN-g.next)
		g.next += k
		n -= k
	}
}

// drawn is how many outputs have been drawn or discarded since seeding.
func (g *mt19937) drawn() int64 { return g.twists*mtN - int64(mtN-g.next) }

// uint32 is the next output: the next state word, tempered.
func (g *mt19937) uint32() uint32 {
	if g.next >= mtN {
		g.twist()
	}
	y := g.state[g.next]
	g.next++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// rnd is Postmark's RND(x): a number in [0, x) from the next output, or 0 without
// drawing one when x is not positive. Skipping the draw matters: a fixed file size
// (low = high) must not consume numbers, or every later choice shifts.
func (g *mt19937) rnd(x int) int {
	if x <= 0 {
		return 0
	}
	return int(g.uint32() % uint32(x))
}
