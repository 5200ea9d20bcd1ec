package tpcc

import (
	"context"
	"database/sql"
	"errors"
)

// delivery draws a Delivery's input (clause 2.7.1) and returns its body (2.7.4): for
// each district of the home warehouse, deliver the oldest undelivered order. It runs
// in-line, not queued for deferred execution as clause 2.7.2 allows.
func (k *worker) delivery() body {
	w := k.wID
	carrier := k.uniform(1, 10)
	return func(ctx context.Context, t *txn) error {
		at := now()
		for d := 1; d <= DistrictsPerWH; d++ {
			var oID int
			err := t.row(ctx, k.q("SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1{FOR UPDATE}"), w, d).Scan(&oID)
			if errors.Is(err, sql.ErrNoRows) {
				continue // no undelivered order in this district: skipped (2.7.4.2)
			}
			if err != nil {
				return err
			}
			n, err := t.exec(ctx, k.q("DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?"), w, d, oID)
			if err != nil {
				return err
			}
			if n == 0 {
				continue // another Delivery took it first
			}
			var c int
			if err := t.row(ctx, k.q("SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"), w, d, oID).Scan(&c); err != nil {
				return err
			}
			if _, err := t.exec(ctx, k.q("UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"), carrier, w, d, oID); err != nil {
				return err
			}
			if _, err := t.exec(ctx, k.q("UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"), at, w, d, oID); err != nil {
				return err
			}
			var total float64
			if err := t.row(ctx, k.q("SELECT COALESCE(SUM(ol_amount), 0) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"), w, d, oID).Scan(&total); err != nil {
				return err
			}
			if _, err := t.exec(ctx, k.q("UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
				cents(total), w, d, c); err != nil {
				return err
			}
		}
		return nil
	}
}
