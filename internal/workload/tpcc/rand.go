package tpcc

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"
)

// Constants of the population (clause 1.2 and 4.3.3.1).
const (
	Items                = 100_000
	DistrictsPerWH       = 10
	CustomersPerDistrict = 3000
	StockPerWH           = Items
	// OrdersPerDistrict initially, of which the last NewOrdersPerDistrict are undelivered.
	OrdersPerDistrict    = 3000
	NewOrdersPerDistrict = 900
	firstNewOrder        = OrdersPerDistrict - NewOrdersPerDistrict + 1 // 2101
)

// rng is the generator of one unit of data or one virtual user.
type rng struct{ *rand.Rand }

// newRNG seeds a generator from the run's seed and a key naming what it generates, so
// every unit is reproducible on its own.
func newRNG(seed int64, key ...any) rng {
	h := fnv.New64a()
	for _, k := range key {
		switch k := k.(type) {
		case string:
			h.Write([]byte(k))
		case int:
			h.Write(strconv.AppendInt(nil, int64(k), 10))
		}
		h.Write([]byte{0})
	}
	return rng{rand.New(rand.NewPCG(uint64(seed), h.Sum64()))}
}

// uniform returns an integer in [lo, hi] (clause 2.1.5).
func (r rng) uniform(lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// NURand is the non-uniform random function of clause 2.1.6:
// (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
func NURand(r *rand.Rand, a, c, x, y int) int {
	return (((r.IntN(a+1) | (x + r.IntN(y-x+1))) + c) % (y - x + 1)) + x
}

func (r rng) nurand(a, c, x, y int) int { return NURand(r.Rand, a, c, x, y) }

// Constants picks the run-time C values of clause 2.1.6 for C_LAST, C_ID and OL_I_ID.
// C for C_LAST at run time must differ from the load's by 65..119, but not 96 or 112
// (clause 2.1.6.1).
type Constants struct {
	CLast, CID, OLIID int
}

func loadConstants(seed int64) Constants {
	r := newRNG(seed, "constants")
	return Constants{CLast: r.uniform(0, 255), CID: r.uniform(0, 1023), OLIID: r.uniform(0, 8191)}
}

// RunConstants derives run-time constants that satisfy clause 2.1.6.1 against load.
func RunConstants(load Constants, seed int64) Constants {
	r := newRNG(seed, "run-constants")
	c := Constants{CID: r.uniform(0, 1023), OLIID: r.uniform(0, 8191)}
	for {
		c.CLast = r.uniform(0, 255)
		d := c.CLast - load.CLast
		if d < 0 {
			d = -d
		}
		if d >= 65 && d <= 119 && d != 96 && d != 112 {
			return c
		}
	}
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// astring appends a random alphanumeric string of length lo..hi (clause 4.3.2.2).
// Only letters and digits, so rows never need escaping for Engine.Load.
func (r rng) astring(b []byte, lo, hi int) []byte {
	n := r.uniform(lo, hi)
	for i := 0; i < n; i++ {
		b = append(b, alnum[r.IntN(len(alnum))])
	}
	return b
}

// nstring appends a random numeric string of length lo..hi.
func (r rng) nstring(b []byte, lo, hi int) []byte {
	n := r.uniform(lo, hi)
	for i := 0; i < n; i++ {
		b = append(b, byte('0'+r.IntN(10)))
	}
	return b
}

// zip appends a zip code: 4 random digits and "11111" (clause 4.3.2.7).
func (r rng) zip(b []byte) []byte {
	b = r.nstring(b, 4, 4)
	return append(b, "11111"...)
}

// data appends I_DATA or S_DATA: 26..50 characters, 10% of them with "ORIGINAL" at a
// random place (clause 4.3.3.1).
func (r rng) data(b []byte) []byte {
	n := r.uniform(26, 50)
	if r.IntN(10) != 0 {
		return r.astring(b, n, n)
	}
	pos := r.IntN(n - 8 + 1)
	b = r.astring(b, pos, pos)
	b = append(b, "ORIGINAL"...)
	return r.astring(b, n-8-pos, n-8-pos)
}

var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// LastName is C_LAST for a number 0..999: its three digits as syllables (clause 4.3.2.3).
func LastName(n int) string {
	return syllables[n/100] + syllables[n/10%10] + syllables[n%10]
}

// money formats an amount with two decimals; tax with four.
func money(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'f', 2, 64) }
func tax(b []byte, v float64) []byte   { return strconv.AppendFloat(b, v, 'f', 4, 64) }

// cents rounds to whole cents.
func cents(v float64) float64 { return math.Round(v*100) / 100 }
