package dbgen

import "tierbench/internal/textfmt"

// gen holds what every table generator shares: the distributions, the text
// pool and the scaling. It is read-only and safe for concurrent use.
type gen struct {
	ds   *distSet
	pool *textPoolT
	sc   scaling
}

func newGen(sf float64) (*gen, error) {
	sc, err := newScaling(sf)
	if err != nil {
		return nil, err
	}
	ds, err := loadDists()
	if err != nil {
		return nil, err
	}
	p, err := textPool()
	if err != nil {
		return nil, err
	}
	return &gen{ds: ds, pool: p, sc: sc}, nil
}

const alphaNum = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,"

// appendRandomString is dbgen's a_rnd (V_STR): a length in [lo, hi], then one
// draw per five characters, six bits per character.
func appendRandomString(b []byte, r *rowSeeds, lo, hi int64, s int) []byte {
	n := r.random(lo, hi, s)
	var ci int64
	for i := int64(0); i < n; i++ {
		if i%5 == 0 {
			ci = r.random(0, maxLong, s)
		}
		b = append(b, alphaNum[ci&0x3f])
		ci >>= 6
	}
	return b
}

// text is dbgen's dbg_text for a column of average length avg: an offset into
// the pool, then a length in [0.4*avg, 1.6*avg].
func (g *gen) text(r *rowSeeds, avg float64, s int) textRef {
	lo, hi := int64(avg*0.4), int64(avg*1.6)
	off := r.random(0, textPoolSize-hi, s)
	n := r.random(lo, hi, s)
	return textRef{int32(off), int32(n)}
}

// appendText appends a comment drawn with text to b.
func (g *gen) appendText(b []byte, t textRef) []byte { return g.pool.appendText(b, t) }

// appendPhone is dbgen's gen_phone: country code 10+nation, then three groups.
func appendPhone(b []byte, r *rowSeeds, nation int64, s int) []byte {
	area := r.random(100, 999, s)
	exch := r.random(100, 999, s)
	num := r.random(1000, 9999, s)
	b = textfmt.AppendPadded(b, 10+nation%90, 2)
	b = append(b, '-')
	b = textfmt.AppendPadded(b, area, 3)
	b = append(b, '-')
	b = textfmt.AppendPadded(b, exch, 3)
	b = append(b, '-')
	return textfmt.AppendPadded(b, num, 4)
}

// retailPrice is dbgen's rpb_routine (Clause 4.2.3 P_RETAILPRICE), in cents.
func retailPrice(partkey int64) int64 {
	return 90000 + (partkey/10)%20001 + (partkey%1000)*100
}

// partSuppKey is dbgen's PART_SUPP_BRIDGE (Clause 4.2.3 PS_SUPPKEY).
func (g *gen) partSuppKey(partkey, i int64) int64 {
	n := g.sc.suppliers()
	return (partkey+i*(n/suppPerPart+(partkey-1)/n))%n + 1
}

func appendSep(b []byte) []byte { return append(b, '|') }
