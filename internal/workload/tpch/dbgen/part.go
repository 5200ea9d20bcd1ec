package dbgen

import "tierbench/internal/textfmt"

var partStreams = []int{sPMfg, sPBrnd, sPType, sPSize, sPCntr, sPCmnt, sPName, sPSQty, sPSScst, sPSCmnt}

type partRec struct {
	name              [5]int // color indexes
	mfgr, brand, size int64
	typ, container    int
	cmnt              textRef
	psQty, psCost     [suppPerPart]int64
	psCmnt            [suppPerPart]textRef
}

const partBlock = 128

// parts appends PART rows (to pb, if non-nil) and their four PARTSUPP rows
// (to sb, if non-nil) for parts first..first+count-1 (Clause 4.2.3).
func (g *gen) parts(pb, sb []byte, first, count int64) ([]byte, []byte) {
	r := newRowSeeds(partStreams, func(int) int64 { return first - 1 })
	nColors := len(g.ds.colors.words)
	perm := make([]int, nColors)
	recs := make([]partRec, partBlock)
	refs := make([]textRef, 0, partBlock*(1+suppPerPart))
	ents := make([]uint32, partBlock*(1+suppPerPart))
	for lo := first; lo < first+count; lo += partBlock {
		n := int(min(partBlock, first+count-lo))
		refs = refs[:0]
		for i := 0; i < n; i++ {
			p := &recs[i]
			if pb != nil {
				g.drawPart(p, r, perm)
				refs = append(refs, p.cmnt)
			}
			if sb != nil {
				for s := 0; s < suppPerPart; s++ {
					p.psQty[s] = r.random(1, 9999, sPSQty)
					p.psCost[s] = r.random(100, 100000, sPSScst)
					p.psCmnt[s] = g.text(r, 124, sPSCmnt)
					refs = append(refs, p.psCmnt[s])
				}
			}
			r.nextRow()
		}
		touchSink.Add(uint32(g.pool.prefetch(refs, ents)))
		for i := 0; i < n; i++ {
			k := lo + int64(i)
			if pb != nil {
				pb = g.appendPart(pb, &recs[i], k)
			}
			if sb != nil {
				sb = g.appendPartSupp(sb, &recs[i], k)
			}
		}
	}
	return pb, sb
}

func (g *gen) drawPart(p *partRec, r *rowSeeds, perm []int) {
	// P_NAME: five distinct colors, the head of a fresh permutation
	for i := range perm {
		perm[i] = i
	}
	last := int64(len(perm) - 1)
	for i := int64(0); i <= last; i++ {
		j := r.random(i, last, sPName)
		perm[i], perm[j] = perm[j], perm[i]
	}
	copy(p.name[:], perm[:5])
	p.mfgr = r.random(1, 5, sPMfg)
	p.brand = r.random(1, 5, sPBrnd)
	p.typ = g.ds.partTypes.pickIndex(r, sPType)
	p.size = r.random(1, 50, sPSize)
	p.container = g.ds.containers.pickIndex(r, sPCntr)
	p.cmnt = g.text(r, 14, sPCmnt)
}

func (g *gen) appendPart(b []byte, p *partRec, k int64) []byte {
	b = appendInt(b, k)
	b = appendSep(b)
	for i, c := range p.name {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, g.ds.colors.words[c]...)
	}
	b = append(b, "|Manufacturer#"...)
	b = appendInt(b, p.mfgr)
	b = append(b, "|Brand#"...)
	b = textfmt.AppendPadded(b, p.mfgr*10+p.brand, 2)
	b = appendSep(b)
	b = append(b, g.ds.partTypes.words[p.typ]...)
	b = appendSep(b)
	b = appendInt(b, p.size)
	b = appendSep(b)
	b = append(b, g.ds.containers.words[p.container]...)
	b = appendSep(b)
	b = appendMoney(b, retailPrice(k))
	b = appendSep(b)
	b = g.appendText(b, p.cmnt)
	return append(b, '|', '\n')
}

func (g *gen) appendPartSupp(b []byte, p *partRec, k int64) []byte {
	for s := 0; s < suppPerPart; s++ {
		b = appendInt(b, k)
		b = appendSep(b)
		b = appendInt(b, g.partSuppKey(k, int64(s)))
		b = appendSep(b)
		b = appendInt(b, p.psQty[s])
		b = appendSep(b)
		b = appendMoney(b, p.psCost[s])
		b = appendSep(b)
		b = g.appendText(b, p.psCmnt[s])
		b = append(b, '|', '\n')
	}
	return b
}
