package dbgen

// Park-Miller "minimal standard" generator as used by dbgen (rnd.c,
// speed_seed.c): x' = 16807*x mod (2^31-1).

const (
	rngMult    = 16807
	rngModulus = 2147483647
	rngModF    = 2147483647.0
	maxLong    = 0x7FFFFFFF
)

// Stream numbers, as in dbgen's dss.h.
const (
	sPMfg      = 0
	sPBrnd     = 1
	sPType     = 2
	sPSize     = 3
	sPCntr     = 4
	sText      = 5
	sPCmnt     = 6
	sPSQty     = 7
	sPSScst    = 8
	sPSCmnt    = 9
	sOSupp     = 10
	sOClrk     = 11
	sOCmnt     = 12
	sOOdate    = 13
	sLQty      = 14
	sLDcnt     = 15
	sLTax      = 16
	sLShip     = 17
	sLSmode    = 18
	sLPkey     = 19
	sLSkey     = 20
	sLSdte     = 21
	sLCdte     = 22
	sLRdte     = 23
	sLRflg     = 24
	sLCmnt     = 25
	sCAddr     = 26
	sCNtrg     = 27
	sCPhne     = 28
	sCAbal     = 29
	sCMseg     = 30
	sCCmnt     = 31
	sSAddr     = 32
	sSNtrg     = 33
	sSPhne     = 34
	sSAbal     = 35
	sSCmnt     = 36
	sPName     = 37
	sOPrio     = 38
	sHVar      = 39
	sOCkey     = 40
	sNCmnt     = 41
	sRCmnt     = 42
	sOLcnt     = 43
	sBBBJnk    = 44
	sBBBType   = 45
	sBBBCmnt   = 46
	sBBBOffst  = 47
	numStreams = 48
)

// streamSeed and streamBoundary are dbgen's initial seeds and per-row draw
// counts (rnd.h). After each row a stream is advanced to exactly boundary draws.
var streamSeed = [numStreams]int64{
	1, 46831694, 1841581359, 1193163244, 727633698, 933588178, 804159733,
	1671059989, 1051288424, 1961692154, 1227283347, 1171034773, 276090261,
	1066728069, 209208115, 554590007, 721958466, 1371272478, 675466456,
	1808217256, 2095021727, 1769349045, 904914315, 373135028, 717419739,
	1095462486, 881155353, 1489529863, 1521138112, 298370230, 1140279430,
	1335826707, 706178559, 110356601, 884434366, 962338209, 1341315363,
	709314158, 591449447, 431918286, 851767375, 606179079, 1500869201,
	1434868289, 263032577, 753643799, 202794285, 715851524,
}

var streamBoundary = [numStreams]int64{
	1, 1, 1, 1, 1, 1, 2, // part, text, p_comment
	4, 4, 8, // partsupp
	1, 1, 2, 1, // orders
	7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 14, // lineitem
	9, 1, 3, 1, 1, 2, // customer
	9, 1, 3, 1, 2, // supplier
	92, 1, 1, 1, 2, 2, 1, // p_name, o_prio, hvar, o_ckey, n_cmnt, r_cmnt, o_lcnt
	1, 1, 1, 1, // BBB
}

// powMod returns 16807^n mod (2^31-1).
func powMod(n int64) int64 {
	z := int64(1)
	m := int64(rngMult)
	for n > 0 {
		if n&1 != 0 {
			z = z * m % rngModulus
		}
		n >>= 1
		m = m * m % rngModulus
	}
	return z
}

// skip advances seed by n draws (dbgen's NthElement).
func skip(seed, n int64) int64 {
	if n <= 0 {
		return seed
	}
	return seed * powMod(n) % rngModulus
}

// rowSeeds holds the state of the streams used by one table: start holds each
// stream's value at the start of the current row, step the multiplier that
// moves a stream forward by one row.
type rowSeeds struct {
	start [numStreams]int64
	step  [numStreams]int64
	cur   [numStreams]int64
	used  []int
}

// newRowSeeds positions the given streams at row (0-based) rows[i] draws*boundary.
func newRowSeeds(streams []int, rowsBefore func(stream int) int64) *rowSeeds {
	r := &rowSeeds{used: streams}
	for _, s := range streams {
		r.start[s] = skip(streamSeed[s], rowsBefore(s)*streamBoundary[s])
		r.step[s] = powMod(streamBoundary[s])
		r.cur[s] = r.start[s]
	}
	return r
}

// nextRow moves every stream to the start of the next row.
func (r *rowSeeds) nextRow() {
	for _, s := range r.used {
		r.start[s] = mulMod(r.start[s], r.step[s])
		r.cur[s] = r.start[s]
	}
}

// mulMod is a*b mod (2^31-1) for a, b below the modulus, folded twice
// instead of divided (a 64-bit division is ~40 cycles; this runs for every
// stream of every row).
func mulMod(a, b int64) int64 {
	p := a * b
	v := (p & rngModulus) + (p >> 31)
	v = (v & rngModulus) + (v >> 31)
	if v >= rngModulus {
		v -= rngModulus
	}
	return v
}

// random is dbgen's UnifInt on stream s: a value uniform in [lo, hi].
func (r *rowSeeds) random(lo, hi int64, s int) int64 {
	v := nextRand(r.cur[s])
	r.cur[s] = v
	return lo + unifScale(v, lo, hi)
}

func unifScale(v, lo, hi int64) int64 {
	var dRange float64
	if hi == maxLong && lo == 0 {
		// dbgen computes this range in 32-bit ints, which wraps to -2^31.
		dRange = -2147483648.0
	} else {
		dRange = float64(hi - lo + 1)
	}
	return int64(float64(v) / rngModF * dRange)
}

// nextRand is x*16807 mod (2^31-1), folded without a division.
func nextRand(x int64) int64 {
	p := x * rngMult
	v := (p & rngModulus) + (p >> 31)
	if v >= rngModulus {
		v -= rngModulus
	}
	return v
}

// From SF 30000 on, dbgen draws O_CUSTKEY and L_PARTKEY from a 64-bit linear
// congruential generator (rng64.c, NextRand64: x' = x*A + 1 mod 2^64) and
// reduces it with |x| % range (dss_random64). The streams keep their
// Park-Miller seeds and skip-ahead (speed_seed.c's 64-bit advance is commented
// out there), so a chunk or update set starts from a Park-Miller state, and
// row_stop's NthElement still moves L_PARTKEY by the draws a row did not use,
// multiplying the 64-bit state modulo 2^31-1 with wrapping products.
const rngA64 = 6364136223846793005

func nextRand64(x int64) int64 { return int64(uint64(x)*rngA64 + 1) }

// random64 is dss_random64 on a state already advanced by nextRand64: a value in [lo, hi].
func random64(x, lo, hi int64) int64 {
	if x < 0 {
		x = -x // MinInt64 stays negative, as in C
	}
	return lo + x%(hi-lo+1)
}

// nthFold[n] turns NthElement(n) for n < 8 into two multiplications: the
// product with the lowest set bit's multiplier may wrap and is reduced with
// C's truncating %, after which |z| < 2^31-1 and the remaining steps are one
// exact multiplication by their combined multiplier (truncation keeps the
// sign, so the residue is the same as step by step).
var nthFold = func() (t [8][2]int64) {
	for n := int64(1); n < 8; n++ {
		low, rest := int64(0), int64(1)
		mult := int64(rngMult)
		for k := n; k > 0; k /= 2 {
			if k%2 != 0 {
				if low == 0 {
					low = mult
				} else {
					rest = rest * mult % rngModulus
				}
			}
			mult = mult * mult % rngModulus
		}
		t[n] = [2]int64{low, rest}
	}
	return t
}()

// nthElement is dbgen's NthElement applied to any 64-bit state: n steps of
// 16807*z mod (2^31-1), where the first product may overflow and wraps as the
// C code does; a negative state gives a negative result (C's % truncates).
func nthElement(z, n int64) int64 {
	if n >= 0 && n < 8 {
		if n == 0 {
			return z
		}
		f := &nthFold[n]
		return (f[0] * z) % rngModulus * f[1] % rngModulus
	}
	mult := int64(rngMult)
	for n > 0 {
		if n%2 != 0 {
			z = (mult * z) % rngModulus
		}
		n /= 2
		mult = (mult * mult) % rngModulus
	}
	return z
}
