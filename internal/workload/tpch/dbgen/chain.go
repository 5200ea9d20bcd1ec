package dbgen

import "context"

// From SF 30000 on, O_CUSTKEY and L_PARTKEY come from dbgen's 64-bit
// generator (see nextRand64). Neither can be positioned in closed form inside
// a run the way the Park-Miller streams are:
//
//   - O_CUSTKEY makes one 64-bit draw per order and row_stop leaves it alone,
//     so within a run its state after k orders is k 64-bit steps from where
//     the run started;
//   - L_PARTKEY makes one draw per line item, then row_stop's NthElement
//     moves it by the 7-lines draws the order did not use, with a modulo
//     2^31-1 that folds the 64-bit state. Its state after an order depends on
//     every earlier order's line count.
//
// A run (a chunk, an update set, or dbgen -U N's sequence of sets) starts both
// from their Park-Miller seeds skipped to its first row, exactly as dbgen's
// set_state/sd_order/sd_line do. orderChain then walks the run order by order
// (one O_LCNT draw, the line items' L_PARTKEY draws and the NthElement fold),
// which costs a few nanoseconds per order: the feeder walks while the workers
// generate, and hands each batch the two states at its first row.

// chainState holds the O_CUSTKEY and L_PARTKEY states at the start of an order.
type chainState struct{ ck, pk int64 }

type orderChain struct {
	ctx  context.Context
	row  int64 // order index the states below belong to
	st   chainState
	lcnt int64 // O_LCNT stream at the start of row
}

// newOrderChain starts a run at order index first, whose order streams are
// orderSkip rows and line streams lineSkip rows past their seeds.
func newOrderChain(ctx context.Context, first, orderSkip, lineSkip int64) *orderChain {
	return &orderChain{
		ctx: ctx,
		row: first,
		st: chainState{
			ck: skip(streamSeed[sOCkey], orderSkip*streamBoundary[sOCkey]),
			pk: skip(streamSeed[sLPkey], lineSkip*streamBoundary[sLPkey]),
		},
		lcnt: skip(streamSeed[sOLcnt], orderSkip*streamBoundary[sOLcnt]),
	}
}

// walk returns the states at order lo and leaves the chain at lo+n. Calls
// must come in row order; a call that finds the context cancelled returns
// whatever state it reached (the batch will not be written).
func (c *orderChain) walk(lo, n int64) chainState {
	c.advance(lo - c.row)
	st := c.st
	c.advance(n)
	return st
}

func (c *orderChain) advance(k int64) {
	for i := int64(0); i < k; i++ {
		if i&(1<<20-1) == 1<<20-1 && c.ctx.Err() != nil {
			return
		}
		c.st.ck = nextRand64(c.st.ck)
		c.lcnt = nextRand(c.lcnt)
		lines := 1 + unifScale(c.lcnt, 1, 7)
		for l := int64(0); l < lines; l++ {
			c.st.pk = nextRand64(c.st.pk)
		}
		c.st.pk = nthElement(c.st.pk, streamBoundary[sLPkey]-lines)
		c.row++
	}
}
