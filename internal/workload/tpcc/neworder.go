package tpcc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
)

// errUnusedItem ends the 1% of New-Orders that name an unused item: the transaction
// rolls back, and counts as completed (clause 2.4.2.3).
var errUnusedItem = errors.New("item number is not valid")

type orderLine struct {
	item, supplyW, qty int
}

// newOrder draws a New-Order's input (clause 2.4.1) and returns its body (2.4.2).
func (k *worker) newOrder() body {
	w := k.wID
	d := k.uniform(1, DistrictsPerWH)
	c := NURand(k.r, 1023, k.wl.run.CID, 1, CustomersPerDistrict)
	n := k.uniform(5, 15)
	rollback := k.uniform(1, 100) == 1
	lines := make([]orderLine, n)
	allLocal := 1
	for i := range lines {
		l := orderLine{item: NURand(k.r, 8191, k.wl.run.OLIID, 1, Items), supplyW: w, qty: k.uniform(1, 10)}
		if k.wl.cfg.Warehouses > 1 && k.r.IntN(100) == 0 { // 1% remote (2.4.1.5)
			l.supplyW = k.otherWarehouse()
			allLocal = 0
		}
		lines[i] = l
	}
	if rollback {
		lines[n-1].item = Items + 1 // an unused item number (2.4.1.4)
	}
	// Lock stock rows in one order everywhere, so New-Orders do not deadlock each other.
	sort.Slice(lines, func(i, j int) bool {
		if lines[i].supplyW != lines[j].supplyW {
			return lines[i].supplyW < lines[j].supplyW
		}
		return lines[i].item < lines[j].item
	})
	distCol := fmt.Sprintf("s_dist_%02d", d)

	return func(ctx context.Context, t *txn) error {
		var wTax, dTax, discount float64
		var next int
		var last, credit string
		if err := t.row(ctx, k.q("SELECT w_tax FROM warehouse WHERE w_id = ?"), w).Scan(&wTax); err != nil {
			return err
		}
		if err := t.row(ctx, k.q("SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?{FOR UPDATE}"), w, d).Scan(&dTax, &next); err != nil {
			return err
		}
		if _, err := t.exec(ctx, k.q("UPDATE district SET d_next_o_id = ? WHERE d_w_id = ? AND d_id = ?"), next+1, w, d); err != nil {
			return err
		}
		if err := t.row(ctx, k.q("SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"), w, d, c).Scan(&discount, &last, &credit); err != nil {
			return err
		}
		entry := now()
		if _, err := t.exec(ctx, k.q("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)"),
			next, d, w, c, entry, n, allLocal); err != nil {
			return err
		}
		if _, err := t.exec(ctx, k.q("INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)"), next, d, w); err != nil {
			return err
		}
		stockSQL := k.q("SELECT s_quantity, s_data, " + distCol + " FROM stock WHERE s_i_id = ? AND s_w_id = ?{FOR UPDATE}")
		total := 0.0
		for i, l := range lines {
			var price float64
			var iName, iData string
			err := t.row(ctx, k.q("SELECT i_price, i_name, i_data FROM item WHERE i_id = ?"), l.item).Scan(&price, &iName, &iData)
			if errors.Is(err, sql.ErrNoRows) {
				return errUnusedItem
			}
			if err != nil {
				return err
			}
			var sQty int
			var sData, distInfo string
			if err := t.row(ctx, stockSQL, l.item, l.supplyW).Scan(&sQty, &sData, &distInfo); err != nil {
				return err
			}
			if sQty >= l.qty+10 { // clause 2.4.2.2
				sQty -= l.qty
			} else {
				sQty = sQty - l.qty + 91
			}
			remote := 0
			if l.supplyW != w {
				remote = 1
			}
			if _, err := t.exec(ctx, k.q("UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?"),
				sQty, l.qty, remote, l.item, l.supplyW); err != nil {
				return err
			}
			amount := cents(float64(l.qty) * price)
			total += amount
			if _, err := t.exec(ctx, k.q("INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)"),
				next, d, w, i+1, l.item, l.supplyW, l.qty, amount, distInfo); err != nil {
				return err
			}
		}
		// The brand-generic flags (I_DATA and S_DATA containing "ORIGINAL") and the
		// total, total * (1 - discount) * (1 + wTax + dTax), are what the terminal
		// would show; there is no terminal, so they are read but not computed.
		_, _, _ = total, discount, wTax+dTax
		return nil
	}
}
