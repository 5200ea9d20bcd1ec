package dbgen

import "io"

// Refresh data (Clause 2.5; dbgen -U). Update set n inserts orders with
// indexes (n-1)*R+1 .. n*R, R = SF*1500, whose keys use sparse sequence 1
// (the key slots the base data leaves empty), and deletes the base orders
// with the same indexes. dbgen first moves the RNG past the whole base
// population (set_state(ORDER, scale, 100, 101)), then past every earlier set.

// updateSkip returns how many rows the order and lineitem streams are moved
// before the first row of update set n.
func (g *gen) updateSkip(n int) (orderSkip, lineSkip int64) {
	total := g.sc.orders()
	prior := int64(n-1) * g.sc.updateRows()
	// dbgen skips total/100 rows 100 times for both tables, then the
	// remainder for the order streams only.
	return total + prior, total - total%100 + prior
}

func (g *gen) updateOrderRange(n int, lo, count int64) orderRange {
	oskip, lskip := g.updateSkip(n)
	first := int64(n-1)*g.sc.updateRows() + 1
	return orderRange{
		first: lo, count: count,
		orderSkip: oskip + lo - first,
		lineSkip:  lskip + lo - first,
		seq:       1 + int64(n%10000)/1000,
	}
}

func (g *gen) updateGroup(n int, first, rows int64, orders, lineitem io.Writer) *group {
	return &group{name: "orders", first: first, count: rows, batchRows: 5000,
		outs: [2]io.Writer{orders, lineitem},
		gen: func(b [2][]byte, lo, cnt int64) [2][]byte {
			b[0], b[1] = g.orders(b[0], b[1], g.updateOrderRange(n, lo, cnt))
			return b
		}}
}

// deleteKey is dbgen's MK_SPARSE for the keys of delete.N.
func deleteKey(i int64, n int) int64 {
	seq := int64(n/1000) & 3
	return (((i>>3)<<2)|seq)<<3 | i&7
}

func (g *gen) deleteGroup(n int, first, rows int64, w io.Writer) *group {
	return &group{name: "delete", first: first, count: rows, batchRows: 50000,
		outs: [2]io.Writer{w},
		gen: func(b [2][]byte, lo, cnt int64) [2][]byte {
			for i := lo; i < lo+cnt; i++ {
				b[0] = appendInt(b[0], deleteKey(i, n))
				b[0] = append(b[0], '|', '\n')
			}
			return b
		}}
}
