package dbgen

import (
	"sync"
	"sync/atomic"

	"tierbench/internal/textfmt"
)

var (
	orderStreams = []int{sOClrk, sOCmnt, sOOdate, sOPrio, sOCkey, sOLcnt}
	lineStreams  = []int{sLQty, sLDcnt, sLTax, sLShip, sLSmode, sLPkey, sLSkey, sLSdte, sLCdte, sLRdte, sLRflg, sLCmnt}
)

// orderRange selects orders to generate: order indexes first..first+count-1,
// with the order and lineitem streams positioned orderSkip and lineSkip rows
// in (they differ from first-1 only for refresh sets), and seq the sparse-key
// sequence number (0 for base data, Clause 4.2.3 O_ORDERKEY).
type orderRange struct {
	first, count        int64
	orderSkip, lineSkip int64
	seq                 int64
}

func baseOrders(first, count int64) orderRange {
	return orderRange{first: first, count: count, orderSkip: first - 1, lineSkip: first - 1}
}

// sparseKey is dbgen's mk_sparse: of every 32 keys the base data uses the
// first 8; refresh sets use the next ones.
func sparseKey(i, seq int64) int64 {
	low := i & 7
	k := i >> 3
	k <<= 2
	k += seq
	k <<= 3
	return k + low
}

type lineRec struct {
	pkey, skey, qty, disc, tax, eprice int64
	sdate, cdate, rdate                int64
	instr, mode                        int
	rflag, status                      byte
	cmnt                               textRef
}

type orderRec struct {
	okey, ckey, odate, clerk, total int64
	prio, lines                     int
	status                          byte
	cmnt                            textRef
	line                            [7]lineRec
}

// orderBlock is how many orders are drawn before they are formatted; their
// comments are fetched from the pool together first (see textPoolT.prefetch).
const orderBlock = 128

// orders appends ORDERS rows (to ob) and their LINEITEM rows (to lb); either
// may be nil to skip formatting that table (Clause 4.2.3).
//
// At SF 30000 and above, st holds the 64-bit O_CUSTKEY and L_PARTKEY states
// at order or.first (see chain.go); below, it is ignored.
func (g *gen) orders(ob, lb []byte, or orderRange, st chainState) ([]byte, []byte) {
	streams := append(append([]int{}, orderStreams...), lineStreams...)
	r := newRowSeeds(streams, func(s int) int64 {
		if s >= sLQty && s <= sLCmnt {
			return or.lineSkip
		}
		return or.orderSkip
	})
	sc := orderScratchPool.Get().(*orderScratch)
	defer orderScratchPool.Put(sc)
	recs, refs, ents := sc.recs[:], sc.refs[:0], sc.ents[:]
	var wide *chainState
	if g.sc.wide() {
		wide = &st
	}
	for lo := or.first; lo < or.first+or.count; lo += orderBlock {
		n := int(min(orderBlock, or.first+or.count-lo))
		for i := 0; i < n; i++ {
			g.drawOrder(&recs[i], r, lo+int64(i), or.seq, wide)
			r.nextRow()
		}
		refs = refs[:0]
		for i := range recs[:n] {
			o := &recs[i]
			if ob != nil {
				refs = append(refs, o.cmnt)
			}
			if lb != nil {
				for l := 0; l < o.lines; l++ {
					refs = append(refs, o.line[l].cmnt)
				}
			}
		}
		touchSink.Add(uint32(g.pool.prefetch(refs, ents)))
		for i := range recs[:n] {
			o := &recs[i]
			if lb != nil {
				lb = g.appendLines(lb, o)
			}
			if ob != nil {
				ob = g.appendOrder(ob, o)
			}
		}
	}
	return ob, lb
}

// orderScratch is what orders needs per call; reused so that batches leave
// no garbage and the heap stays the size of the batch buffers at every SF.
type orderScratch struct {
	recs [orderBlock]orderRec
	refs [orderBlock * 8]textRef
	ents [orderBlock * 8]uint32
}

var orderScratchPool = sync.Pool{New: func() any { return new(orderScratch) }}

// touchSink keeps the pool's prefetch loads from being optimised away.
var touchSink atomic.Uint32

// drawOrder makes every random draw of one order and its lineitems (dbgen's
// mk_order) in the order dbgen makes them within each stream. wide, when not
// nil, holds the 64-bit streams used from SF 30000 on and is advanced.
func (g *gen) drawOrder(o *orderRec, r *rowSeeds, idx, seq int64, wide *chainState) {
	ds := g.ds
	nCust := g.sc.customers()
	nPart := g.sc.parts()
	clerks := max(g.sc.scale*1000, 1000)
	const oDateMax = startDate + totalDates - (121 + 30) - 1

	o.okey = sparseKey(idx, seq)
	var ckey int64
	if wide != nil {
		wide.ck = nextRand64(wide.ck)
		ckey = random64(wide.ck, 1, nCust)
	} else {
		ckey = r.random(1, nCust, sOCkey)
	}
	delta := int64(1)
	for ckey%3 == 0 { // CUST_MORTALITY: a third of customers have no orders
		ckey += delta
		ckey = min(ckey, nCust)
		delta = -delta
	}
	o.ckey = ckey
	o.odate = r.random(startDate, oDateMax, sOOdate) - startDate
	o.prio = ds.priorities.pickIndex(r, sOPrio)
	o.clerk = r.random(1, clerks, sOClrk)
	o.cmnt = g.text(r, 49, sOCmnt)
	o.lines = int(r.random(1, 7, sOLcnt))
	o.total = 0
	shipped := 0
	for l := 0; l < o.lines; l++ {
		li := &o.line[l]
		li.qty = r.random(1, 50, sLQty)
		li.disc = r.random(0, 10, sLDcnt)
		li.tax = r.random(0, 8, sLTax)
		li.instr = ds.instructs.pickIndex(r, sLShip)
		li.mode = ds.shipModes.pickIndex(r, sLSmode)
		li.cmnt = g.text(r, 27, sLCmnt)
		if wide != nil {
			wide.pk = nextRand64(wide.pk)
			li.pkey = random64(wide.pk, 1, nPart)
		} else {
			li.pkey = r.random(1, nPart, sLPkey)
		}
		snum := r.random(0, 3, sLSkey)
		li.skey = g.partSuppKey(li.pkey, snum)
		li.eprice = retailPrice(li.pkey) * li.qty
		o.total += ((li.eprice * (100 - li.disc)) / 100) * (100 + li.tax) / 100
		li.sdate = o.odate + r.random(1, 121, sLSdte)
		li.cdate = o.odate + r.random(30, 90, sLCdte)
		li.rdate = li.sdate + r.random(1, 30, sLRdte)
		li.rflag = 'N'
		if onOrBefore[li.rdate] {
			li.rflag = ds.returnFlags.words[ds.returnFlags.pickIndex(r, sLRflg)][0]
		}
		li.status = 'O'
		if onOrBefore[li.sdate] {
			li.status = 'F'
			shipped++
		}
	}
	if wide != nil {
		// row_stop: NthElement over the 64-bit state for the unused draws
		wide.pk = nthElement(wide.pk, streamBoundary[sLPkey]-int64(o.lines))
	}
	o.status = 'O'
	if shipped > 0 {
		o.status = 'P'
	}
	if shipped == o.lines {
		o.status = 'F'
	}
}

func (g *gen) appendOrder(b []byte, o *orderRec) []byte {
	b = appendInt(b, o.okey)
	b = appendSep(b)
	b = appendInt(b, o.ckey)
	b = append(b, '|', o.status, '|')
	b = appendMoney(b, o.total)
	b = appendSep(b)
	b = append(b, dateStr[o.odate][:]...)
	b = appendSep(b)
	b = append(b, g.ds.priorities.words[o.prio]...)
	b = append(b, "|Clerk#"...)
	b = textfmt.AppendPadded(b, o.clerk, 9)
	b = append(b, "|0|"...)
	b = g.appendText(b, o.cmnt)
	return append(b, '|', '\n')
}

func (g *gen) appendLines(b []byte, o *orderRec) []byte {
	ds := g.ds
	for l := 0; l < o.lines; l++ {
		li := &o.line[l]
		b = appendInt(b, o.okey)
		b = appendSep(b)
		b = appendInt(b, li.pkey)
		b = appendSep(b)
		b = appendInt(b, li.skey)
		b = append(b, '|', byte('1'+l), '|')
		b = appendInt(b, li.qty)
		b = appendSep(b)
		b = appendMoney(b, li.eprice)
		b = append(b, '|', '0', '.', byte('0'+li.disc/10), byte('0'+li.disc%10))
		b = append(b, '|', '0', '.', '0', byte('0'+li.tax))
		b = append(b, '|', li.rflag, '|', li.status, '|')
		b = append(b, dateStr[li.sdate][:]...)
		b = appendSep(b)
		b = append(b, dateStr[li.cdate][:]...)
		b = appendSep(b)
		b = append(b, dateStr[li.rdate][:]...)
		b = appendSep(b)
		b = append(b, ds.instructs.words[li.instr]...)
		b = appendSep(b)
		b = append(b, ds.shipModes.words[li.mode]...)
		b = appendSep(b)
		b = g.appendText(b, li.cmnt)
		b = append(b, '|', '\n')
	}
	return b
}
