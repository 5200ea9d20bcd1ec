package qgen

// pmModulus is the modulus of the Park-Miller "minimum standard" generator
// (Park & Miller, CACM Oct 1988) that dbgen and qgen share: x' = 16807*x mod 2^31-1.
const pmModulus = 2147483647

// queryStreams is the number of RNG streams qgen seeds: stream 0 plus one per query.
const queryStreams = 23

// nextRand advances a Park-Miller state by one step. The product is formed in
// 64 bits, as qgen's DSS_HUGE arithmetic does.
func nextRand(x int64) int64 {
	return x * 16807 % pmModulus
}

// streams holds the RNG state of each query, seeded the way qgen seeds it from -r.
type streams [queryStreams]int64

// newStreams seeds stream 0 with seed (a negative seed is first moved up by
// 2^31-1, as qgen does) and stream q with the q-th successor of the seed, so
// that each query draws from its own stream. A seed that would hold the
// generator at 0 is refused (seedState).
func newStreams(seed int64) (*streams, error) {
	state, err := seedState(seed)
	if err != nil {
		return nil, err
	}
	var s streams
	s[0] = state
	for q := 1; q < queryStreams; q++ {
		s[0] = nextRand(s[0])
		s[q] = s[0]
	}
	return &s, nil
}

// unifInt draws an integer uniformly from [lo, hi] from stream q: the next state
// scaled by (hi-lo+1)/(2^31-1) in double precision and truncated, which is how
// dbgen's UnifInt maps a state to a range.
func (s *streams) unifInt(lo, hi int64, q int) int64 {
	s[q] = nextRand(s[q])
	return lo + int64(float64(s[q])/float64(pmModulus)*float64(hi-lo+1))
}

// permute shuffles a in place with stream q: position i swaps with a uniformly
// drawn position in [i, len(a)-1], front to back (dbgen's permute()).
func (s *streams) permute(a []int64, q int) {
	for i := range a {
		j := s.unifInt(int64(i), int64(len(a)-1), q)
		a[i], a[j] = a[j], a[i]
	}
}

// pick draws a member of d with stream q, weighted by the member weights, and
// returns its index (dbgen's pick_str).
func (s *streams) pick(d *distribution, q int) int {
	return d.Index(s.unifInt(1, d.Max(), q))
}
