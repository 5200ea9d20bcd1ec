package dbgen

import (
	"context"
	"fmt"
	"io"
)

// Refresh data (Clause 2.5; dbgen -U). Update set n inserts orders with
// indexes (n-1)*R+1 .. n*R, R = SF*1500, whose keys use sparse sequence 1
// (the key slots the base data leaves empty), and deletes the base orders
// with the same indexes. dbgen first moves the RNG past the whole base
// population (set_state(ORDER, scale, 100, 101)), then past every earlier set
// (sd_order and sd_line, closed-form skips), so any set can be generated on
// its own: "dbgen -U n -S n" writes set n alone. "dbgen -U n" writes sets
// 1..n as one run; below SF 30000 its sets are the same bytes as the sets
// written alone, from SF 30000 on the 64-bit streams continue from one set
// into the next (see chain.go), so set k of such a run differs from set k
// alone for k > 1. Both are reproduced.

// maxSparseSets is the number of update sets whose keys dbgen keeps apart:
// MK_SPARSE puts set n's inserted orders in key slot 1+n/1000 and its
// deleted ones in slot n/1000, so from set 1000 on delete.N names orders that
// were never loaded and the inserts move into another slot.
const maxSparseSets = 999

// MaxUpdateSet returns the highest update set that dbgen's refresh data
// defines consistently at scale factor sf: each set deletes a different
// slice of the base orders, so there are at most orders/R of them, and no
// more than 999 (see maxSparseSets). It is 999 for every SF from 0.01 up.
func MaxUpdateSet(sf float64) int {
	sc, err := newScaling(sf)
	if err != nil {
		return 0
	}
	rows := sc.updateRows()
	if rows <= 0 {
		return 0
	}
	return int(min(maxSparseSets, sc.orders()/rows))
}

// UpdateSets selects the refresh sets From..To, written as one dbgen run
// ("dbgen -U To -S From"; From 1 is plain "dbgen -U To"). The zero value
// selects none.
type UpdateSets struct{ From, To int }

// Count is how many update sets u asks for.
func (u UpdateSets) Count() int {
	if u.From < 1 || u.To < u.From {
		return 0
	}
	return u.To - u.From + 1
}

func (u UpdateSets) check(sf float64) error {
	if u.From == 0 && u.To == 0 {
		return nil
	}
	max := MaxUpdateSet(sf)
	switch {
	case u.From < 1:
		return fmt.Errorf("dbgen: update set %d: sets are numbered from 1", u.From)
	case u.To < u.From:
		return fmt.Errorf("dbgen: update sets %d..%d: the last set comes before the first", u.From, u.To)
	case u.To > max:
		return fmt.Errorf("dbgen: update set %d: at SF %v dbgen's refresh data has sets 1 to %d", u.To, sf, max)
	}
	return nil
}

// updateSkip returns how many rows the order and lineitem streams are moved
// before the first row of update set n.
func (g *gen) updateSkip(n int) (orderSkip, lineSkip int64) {
	total := g.sc.orders()
	prior := int64(n-1) * g.sc.updateRows()
	// dbgen skips total/100 rows 100 times for both tables, then the
	// remainder for the order streams only.
	return total + prior, total - total%100 + prior
}

func (g *gen) updateFirst(n int) int64 { return int64(n-1)*g.sc.updateRows() + 1 }

func (g *gen) updateOrderRange(n int, lo, count int64) orderRange {
	oskip, lskip := g.updateSkip(n)
	first := g.updateFirst(n)
	return orderRange{
		first: lo, count: count,
		orderSkip: oskip + lo - first,
		lineSkip:  lskip + lo - first,
		seq:       1 + int64(n%10000)/1000,
	}
}

// updateGroup generates the orders and line items of set n; from is the
// first set of the dbgen run it belongs to.
func (g *gen) updateGroup(ctx context.Context, n, from int, orders, lineitem io.Writer) *group {
	rows := g.sc.updateRows()
	ug := &group{name: "orders", first: g.updateFirst(n), count: rows, batchRows: 5000,
		outs: [2]io.Writer{orders, lineitem},
		gen: func(b [2][]byte, lo, cnt int64, st chainState) [2][]byte {
			b[0], b[1] = g.orders(b[0], b[1], g.updateOrderRange(n, lo, cnt), st)
			return b
		}}
	if g.sc.wide() {
		oskip, lskip := g.updateSkip(from)
		ug.walk = newOrderChain(ctx, g.updateFirst(from), oskip, lskip).walk
	}
	return ug
}

// deleteKey is dbgen's MK_SPARSE for the keys of delete.N.
func deleteKey(i int64, n int) int64 {
	seq := int64(n/1000) & 3
	return (((i>>3)<<2)|seq)<<3 | i&7
}

func (g *gen) deleteGroup(n int, w io.Writer) *group {
	return &group{name: "delete", first: g.updateFirst(n), count: g.sc.updateRows(), batchRows: 50000,
		outs: [2]io.Writer{w},
		gen: func(b [2][]byte, lo, cnt int64, _ chainState) [2][]byte {
			for i := lo; i < lo+cnt; i++ {
				b[0] = appendInt(b[0], deleteKey(i, n))
				b[0] = append(b[0], '|', '\n')
			}
			return b
		}}
}

// GenerateUpdate writes update set n (1-based) at scale factor sf alone, as
// "dbgen -U n -S n" does: the rows of orders.tbl.uN, lineitem.tbl.uN and
// delete.N. Earlier sets are skipped, not generated. Any writer may be nil to
// skip that file.
func GenerateUpdate(ctx context.Context, sf float64, n int, orders, lineitem, deletes io.Writer) error {
	return generateUpdate(ctx, sf, n, n, orders, lineitem, deletes)
}

// generateUpdate writes set n of the dbgen run that starts at set from.
func generateUpdate(ctx context.Context, sf float64, n, from int, orders, lineitem, deletes io.Writer) error {
	if n < 1 || from < 1 {
		return fmt.Errorf("dbgen: update set %d: sets are numbered from 1", min(n, from))
	}
	if err := (UpdateSets{From: from, To: n}).check(sf); err != nil {
		return err
	}
	g, err := newGen(sf)
	if err != nil {
		return err
	}
	groups := []*group{}
	if orders != nil || lineitem != nil {
		groups = append(groups, g.updateGroup(ctx, n, from, orders, lineitem))
	}
	if deletes != nil {
		groups = append(groups, g.deleteGroup(n, deletes))
	}
	return runGroups(ctx, workerCount(0), groups)
}
