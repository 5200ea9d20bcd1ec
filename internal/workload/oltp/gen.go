package oltp

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"
)

// generator draws values of one ValueSpec. append writes a population value as text
// for Engine.Load (row counts from 1); value draws a transaction parameter.
type generator interface {
	append(b []byte, r *rand.Rand, row int64) []byte
	value(r *rand.Rand) any
}

// env resolves what a spec refers to outside itself.
type env struct {
	seed int64
	// keys is the number of keys of a table (1..n): its rows at load, the largest key
	// at the start of a run.
	keys func(table, column string) (int64, error)
	// counter is the shared next-value source of a run-time sequence.
	counter func(s *ValueSpec) *atomic.Int64
	// load: the spec fills a column (sequences count rows).
	load bool
}

// newRNG seeds a generator from the seed and a key naming what it generates, so that
// every chunk of the population and every user is reproducible on its own.
func newRNG(seed int64, key ...any) *rand.Rand {
	h := fnv.New64a()
	for _, k := range key {
		fmt.Fprint(h, k)
		h.Write([]byte{0})
	}
	return rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
}

func newGenerator(s *ValueSpec, e env) (generator, error) {
	lo, hi := int64(s.Min), int64(s.Max)
	if s.Table != "" && s.Dist != "sequence" {
		n, err := e.keys(s.Table, s.Column)
		if err != nil {
			return nil, err
		}
		if n < 1 {
			return nil, fmt.Errorf("%s: table %s has no rows to draw keys from", s.path, s.Table)
		}
		lo, hi = 1, n
	}
	switch s.Dist {
	case "sequence":
		if e.load {
			return seqLoad{start: s.Start, divide: s.Divide, cycle: s.Cycle}, nil
		}
		return seqRun{next: e.counter(s)}, nil
	case "uniform":
		if s.Float {
			scale := math.Pow10(s.Decimals)
			return uniformFloat{lo: s.Min, hi: s.Max, scale: scale, decimals: s.Decimals}, nil
		}
		return uniformInt{lo: lo, n: hi - lo + 1}, nil
	case "key":
		return uniformInt{lo: lo, n: hi - lo + 1}, nil
	case "zipfian":
		z := newZipfian(lo, hi, s.Theta, s.Reverse)
		if s.Scramble {
			z.stride = scrambleStride(z.n)
		}
		return z, nil
	case "nurand":
		c := newRNG(e.seed, "nurand", s.path).Int64N(s.A + 1)
		return nurand{a: s.A, c: c, lo: lo, hi: hi}, nil
	case "text":
		return newText(s), nil
	case "words":
		return wordsGen{lo: lo, n: hi - lo + 1, prefix: s.Prefix, suffix: s.Suffix}, nil
	case "date":
		days := int64(s.MaxTime.Sub(s.MinTime)/(24*time.Hour)) + 1
		return timeGen{lo: s.MinTime, n: days, step: 24 * time.Hour, layout: dateLayout}, nil
	case "timestamp":
		secs := int64(s.MaxTime.Sub(s.MinTime)/time.Second) + 1
		return timeGen{lo: s.MinTime, n: secs, step: time.Second, layout: timestampLayout}, nil
	case "choice":
		return newChoice(s), nil
	case "const":
		return constant{v: s.Values[0]}, nil
	case "bytes":
		return blobGen{lo: lo, n: hi - lo + 1}, nil
	case "now":
		return now{}, nil
	}
	return nil, fmt.Errorf("%s: unknown distribution %q", s.path, s.Dist)
}

func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		return strconv.AppendFloat(b, v, 'f', -1, 64)
	case string:
		return append(b, v...)
	}
	return fmt.Append(b, v)
}

// seqLoad numbers rows: start + (row-1)/divide, modulo cycle when set (cycle 3
// gives 1,2,3,1,2,3 for order lines).
type seqLoad struct{ start, divide, cycle int64 }

func (g seqLoad) append(b []byte, _ *rand.Rand, row int64) []byte {
	v := (row - 1) / g.divide
	if g.cycle > 0 {
		v %= g.cycle
	}
	return strconv.AppendInt(b, g.start+v, 10)
}
func (g seqLoad) value(*rand.Rand) any { return g.start }

// seqRun hands out the next value of a counter shared by every user.
type seqRun struct{ next *atomic.Int64 }

func (g seqRun) append(b []byte, r *rand.Rand, _ int64) []byte { return appendValue(b, g.value(r)) }
func (g seqRun) value(*rand.Rand) any                          { return g.next.Add(1) }

type uniformInt struct{ lo, n int64 }

func (g uniformInt) draw(r *rand.Rand) int64 { return g.lo + r.Int64N(g.n) }
func (g uniformInt) append(b []byte, r *rand.Rand, _ int64) []byte {
	return strconv.AppendInt(b, g.draw(r), 10)
}
func (g uniformInt) value(r *rand.Rand) any { return g.draw(r) }

type uniformFloat struct {
	lo, hi, scale float64
	decimals      int
}

func (g uniformFloat) draw(r *rand.Rand) float64 {
	return math.Round((g.lo+r.Float64()*(g.hi-g.lo))*g.scale) / g.scale
}
func (g uniformFloat) append(b []byte, r *rand.Rand, _ int64) []byte {
	return strconv.AppendFloat(b, g.draw(r), 'f', g.decimals, 64)
}
func (g uniformFloat) value(r *rand.Rand) any { return g.draw(r) }

// nurand is TPC-C's non-uniform random function (clause 2.1.6):
// (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
type nurand struct{ a, c, lo, hi int64 }

func (g nurand) draw(r *rand.Rand) int64 {
	return (((r.Int64N(g.a+1) | (g.lo + r.Int64N(g.hi-g.lo+1))) + g.c) % (g.hi - g.lo + 1)) + g.lo
}
func (g nurand) append(b []byte, r *rand.Rand, _ int64) []byte {
	return strconv.AppendInt(b, g.draw(r), 10)
}
func (g nurand) value(r *rand.Rand) any { return g.draw(r) }

// zipfian draws lo..hi with the probability of lo+k-1 proportional to 1/k^theta: lo
// is the most popular value (hi when reverse). It samples exactly, by rejection-
// inversion (Hörmann and Derflinger, "Rejection-inversion to generate variates from
// monotone discrete distributions", ACM TOMACS 6(3), 1996), in constant time and
// without the O(n) sum that YCSB's approximate generator needs at setup.
type zipfian struct {
	lo, n   int64
	theta   float64
	hx1, hn float64 // H(1.5) - 1 and H(n + 0.5)
	s       float64
	reverse bool
	stride  int64 // scrambled (scrambleStride), 0: in rank order
}

func newZipfian(lo, hi int64, theta float64, reverse bool) zipfian {
	z := zipfian{lo: lo, n: hi - lo + 1, theta: theta, reverse: reverse}
	z.hx1 = z.hIntegral(1.5) - 1
	z.hn = z.hIntegral(float64(z.n) + 0.5)
	z.s = 2 - z.hIntegralInverse(z.hIntegral(2.5)-z.h(2))
	return z
}

func (z zipfian) draw(r *rand.Rand) int64 {
	k := z.rank(r)
	switch {
	case z.reverse:
		return z.lo + z.n - k
	case z.stride > 0:
		return z.lo + scrambleRank(k-1, z.n, z.stride)
	}
	return z.lo + k - 1
}

// scrambleStride is the step that spreads the ranks of n values over 0..n-1: the
// whole number nearest n/phi that shares no factor with n. Rank i goes to i times the
// stride modulo n, a permutation (the stride is coprime with n), and ranks next to
// each other land far apart and evenly spread, as in Fibonacci hashing (Knuth, The Art
// of Computer Programming vol. 3, 6.4). A shop's popular products are not its first
// product numbers, and with the popular rows side by side a page cache would hold the
// hot set in a few pages; YCSB draws its Zipfian keys scrambled for the same reason
// (its CoreWorkload's ScrambledZipfianGenerator).
func scrambleStride(n int64) int64 {
	s := max(1, int64(math.Round(float64(n)/math.Phi)))
	for gcd(s, n) != 1 {
		s++
	}
	return s
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// scrambleRank is where rank i (0-based) of n lands with stride.
func scrambleRank(i, n, stride int64) int64 {
	hi, lo := bits.Mul64(uint64(i), uint64(stride))
	return int64(bits.Rem64(hi, lo, uint64(n)))
}

// rank is 1 for the most popular value.
func (z zipfian) rank(r *rand.Rand) int64 {
	if z.n == 1 {
		return 1
	}
	for {
		u := z.hn + r.Float64()*(z.hx1-z.hn)
		x := z.hIntegralInverse(u)
		k := int64(x + 0.5)
		k = max(1, min(k, z.n))
		if float64(k)-x <= z.s || u >= z.hIntegral(float64(k)+0.5)-z.h(float64(k)) {
			return k
		}
	}
}

// h is the unnormalised probability x^-theta; hIntegral its integral (up to a
// constant) and hIntegralInverse that integral's inverse.
func (z zipfian) h(x float64) float64 { return math.Exp(-z.theta * math.Log(x)) }

func (z zipfian) hIntegral(x float64) float64 {
	lx := math.Log(x)
	return helper2((1-z.theta)*lx) * lx
}

func (z zipfian) hIntegralInverse(x float64) float64 {
	t := max(x*(1-z.theta), -1)
	return math.Exp(helper1(t) * x)
}

// helper1 is log1p(x)/x and helper2 expm1(x)/x, both continuous at 0.
func helper1(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

func helper2(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3)*(1+0.25*x))
}

func (z zipfian) append(b []byte, r *rand.Rand, _ int64) []byte {
	return strconv.AppendInt(b, z.draw(r), 10)
}
func (z zipfian) value(r *rand.Rand) any { return z.draw(r) }

type constant struct{ v any }

func (g constant) append(b []byte, _ *rand.Rand, _ int64) []byte { return appendValue(b, g.v) }
func (g constant) value(*rand.Rand) any                          { return g.v }

type now struct{}

func (now) append(b []byte, _ *rand.Rand, _ int64) []byte {
	return time.Now().UTC().AppendFormat(b, timestampLayout)
}
func (now) value(*rand.Rand) any { return time.Now().UTC().Format(timestampLayout) }

type timeGen struct {
	lo     time.Time
	n      int64
	step   time.Duration
	layout string
}

func (g timeGen) draw(r *rand.Rand) time.Time {
	return g.lo.Add(time.Duration(r.Int64N(g.n)) * g.step)
}
func (g timeGen) append(b []byte, r *rand.Rand, _ int64) []byte {
	return g.draw(r).AppendFormat(b, g.layout)
}
func (g timeGen) value(r *rand.Rand) any { return g.draw(r).Format(g.layout) }

type choice struct {
	values []any
	cum    []float64 // nil: equally likely
}

func newChoice(s *ValueSpec) choice {
	c := choice{values: s.Values}
	if len(s.Weights) > 0 {
		var t float64
		for _, w := range s.Weights {
			t += w
			c.cum = append(c.cum, t)
		}
	}
	return c
}

func (g choice) draw(r *rand.Rand) any {
	if g.cum == nil {
		return g.values[r.IntN(len(g.values))]
	}
	u := r.Float64() * g.cum[len(g.cum)-1]
	for i, c := range g.cum {
		if u < c {
			return g.values[i]
		}
	}
	return g.values[len(g.values)-1]
}
func (g choice) append(b []byte, r *rand.Rand, _ int64) []byte { return appendValue(b, g.draw(r)) }
func (g choice) value(r *rand.Rand) any                        { return g.draw(r) }

// MaxBlobBytes bounds a value of the bytes distribution: 4 MiB stays well inside
// MariaDB's default max_allowed_packet (16 MiB) and one protocol packet, with room for
// several values in a statement.
const MaxBlobBytes = 4 << 20

// blobGen draws binary values whose size is uniform in lo..lo+n-1 bytes. Their bytes
// are random and so incompressible, as the JPEG images a shop serves are: no engine or
// device can make them smaller than they are.
type blobGen struct{ lo, n int64 }

func (g blobGen) draw(r *rand.Rand) []byte {
	b := make([]byte, g.lo+r.Int64N(g.n))
	i := 0
	for ; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.Uint64())
	}
	if i < len(b) {
		var tail [8]byte
		binary.LittleEndian.PutUint64(tail[:], r.Uint64())
		copy(b[i:], tail[:])
	}
	return b
}

// append writes a value as hex text. Blob columns are loaded as bytes (insertChunk)
// and estimated by their mean size, so this serves only a bytes parameter that a
// statement's text ends up with.
func (g blobGen) append(b []byte, r *rand.Rand, _ int64) []byte {
	return hex.AppendEncode(b, g.draw(r))
}
func (g blobGen) value(r *rand.Rand) any { return g.draw(r) }
