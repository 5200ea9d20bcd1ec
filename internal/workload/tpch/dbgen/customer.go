package dbgen

import "tierbench/internal/textfmt"

var customerStreams = []int{sCAddr, sCNtrg, sCPhne, sCAbal, sCMseg, sCCmnt}

// customers appends CUSTOMER rows first..first+count-1 (Clause 4.2.3).
func (g *gen) customers(b []byte, first, count int64) []byte {
	r := newRowSeeds(customerStreams, func(int) int64 { return first - 1 })
	for k := first; k < first+count; k++ {
		b = appendInt(b, k)
		b = append(b, "|Customer#"...)
		b = textfmt.AppendPadded(b, k, 9)
		b = appendSep(b)
		b = appendRandomString(b, r, 10, 40, sCAddr)
		b = appendSep(b)
		nation := r.random(0, numNations-1, sCNtrg)
		b = appendInt(b, nation)
		b = appendSep(b)
		b = appendPhone(b, r, nation, sCPhne)
		b = appendSep(b)
		b = appendMoney(b, r.random(-99999, 999999, sCAbal))
		b = appendSep(b)
		b = append(b, g.ds.segments.words[g.ds.segments.pickIndex(r, sCMseg)]...)
		b = appendSep(b)
		b = g.appendText(b, g.text(r, 73, sCCmnt))
		b = append(b, '|', '\n')
		r.nextRow()
	}
	return b
}
