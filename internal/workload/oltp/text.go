package oltp

import (
	"math/rand/v2"
	"strings"
)

const (
	digits  = "0123456789"
	lower   = "abcdefghijklmnopqrstuvwxyz"
	upper   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	alnum   = lower + digits
	classes = "#@^*"
)

// textGen fills a pattern: # a digit, @ a lower-case letter, ^ a capital, * a letter
// or digit, \ takes the next character literally; without a pattern, min..max
// lower-case letters. Prefix and suffix are added as they are.
type textGen struct {
	ops            []textOp
	minLen, maxLen int
	prefix, suffix string
}

// textOp is a literal run (set == "") or one character drawn from set.
type textOp struct {
	lit string
	set string
}

func newText(s *ValueSpec) textGen {
	g := textGen{minLen: s.MinLen, maxLen: s.MaxLen, prefix: s.Prefix, suffix: s.Suffix}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			g.ops = append(g.ops, textOp{lit: lit.String()})
			lit.Reset()
		}
	}
	p := s.Pattern
	for i := 0; i < len(p); i++ {
		var set string
		switch p[i] {
		case '#':
			set = digits
		case '@':
			set = lower
		case '^':
			set = upper
		case '*':
			set = alnum
		case '\\':
			if i+1 < len(p) {
				i++
			}
			lit.WriteByte(p[i])
			continue
		default:
			lit.WriteByte(p[i])
			continue
		}
		flush()
		g.ops = append(g.ops, textOp{set: set})
	}
	flush()
	return g
}

func (g textGen) append(b []byte, r *rand.Rand, _ int64) []byte {
	b = append(b, g.prefix...)
	if g.ops == nil {
		n := g.minLen + r.IntN(g.maxLen-g.minLen+1)
		for range n {
			b = append(b, lower[r.IntN(len(lower))])
		}
	}
	for _, op := range g.ops {
		if op.set == "" {
			b = append(b, op.lit...)
			continue
		}
		b = append(b, op.set[r.IntN(len(op.set))])
	}
	return append(b, g.suffix...)
}

func (g textGen) value(r *rand.Rand) any { return string(g.append(nil, r, 0)) }

// lexicon is what words draws from: short, common, distinct first letters spread.
var lexicon = strings.Fields(`
alpha amber anchor apple arrow autumn badge basket beacon berry blossom bridge
canyon carbon castle cedar circle cloud copper coral crystal daisy delta desert
dragon eagle echo ember falcon feather forest fossil galaxy garden glacier granite
harbor hazel helium horizon island ivory jasmine jungle kernel kettle lagoon lantern
lemon marble meadow meteor mirror nectar nickel oasis ocean olive orbit pebble pepper
planet prairie quartz quill radar raven ribbon river saddle salmon shadow silver
summit thunder timber tulip umbra unicorn valley velvet violet walnut willow winter
yarrow yellow zenith zephyr`)

// wordsGen draws lo..lo+n-1 words from the lexicon, separated by spaces.
type wordsGen struct {
	lo, n          int64
	prefix, suffix string
}

func (g wordsGen) append(b []byte, r *rand.Rand, _ int64) []byte {
	b = append(b, g.prefix...)
	k := g.lo + r.Int64N(g.n)
	for i := int64(0); i < k; i++ {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, lexicon[r.IntN(len(lexicon))]...)
	}
	return append(b, g.suffix...)
}

func (g wordsGen) value(r *rand.Rand) any { return string(g.append(nil, r, 0)) }
