package dbgen

import "tierbench/internal/textfmt"

var supplierStreams = []int{sSAddr, sSNtrg, sSPhne, sSAbal, sSCmnt, sBBBJnk, sBBBType, sBBBCmnt, sBBBOffst}

// suppliers appends SUPPLIER rows first..first+count-1 (Clause 4.2.3),
// including the "Customer ... Complaints/Recommends" comments of Clause 4.2.3.
func (g *gen) suppliers(b []byte, first, count int64) []byte {
	r := newRowSeeds(supplierStreams, func(int) int64 { return first - 1 })
	var cmnt [256]byte
	for k := first; k < first+count; k++ {
		b = appendInt(b, k)
		b = append(b, "|Supplier#"...)
		b = textfmt.AppendPadded(b, k, 9)
		b = appendSep(b)
		b = appendRandomString(b, r, 10, 40, sSAddr)
		b = appendSep(b)
		nation := r.random(0, numNations-1, sSNtrg)
		b = appendInt(b, nation)
		b = appendSep(b)
		b = appendPhone(b, r, nation, sSPhne)
		b = appendSep(b)
		b = appendMoney(b, r.random(-99999, 999999, sSAbal))
		b = appendSep(b)
		c := g.appendText(cmnt[:0], g.text(r, 63, sSCmnt))
		clen := int64(len(c))
		badPress := r.random(1, 10000, sBBBCmnt)
		typ := r.random(0, 100, sBBBType)
		noise := r.random(0, clen-19, sBBBJnk)
		offset := r.random(0, clen-(19+noise), sBBBOffst)
		if badPress <= 10 {
			copy(c[offset:], "Customer ")
			what := "Recommends"
			if typ < 50 {
				what = "Complaints"
			}
			copy(c[9+offset+noise:], what)
		}
		b = append(b, c...)
		b = append(b, '|', '\n')
		r.nextRow()
	}
	return b
}
