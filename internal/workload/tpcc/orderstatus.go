package tpcc

import (
	"context"
	"database/sql"
	"errors"
)

// orderStatus draws an Order-Status's input (clause 2.6.1) and returns its body
// (2.6.2): the customer, their latest order and its lines. It only reads.
func (k *worker) orderStatus() body {
	w := k.wID
	d := k.uniform(1, DistrictsPerWH)
	cID, last := k.customer()
	return func(ctx context.Context, t *txn) error {
		c := cID
		if c == 0 {
			var err error
			if c, err = k.customerByName(ctx, t, w, d, last); err != nil {
				return err
			}
		}
		var balance float64
		var first, middle, lastName string
		if err := t.row(ctx, k.q("SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"), w, d, c).
			Scan(&balance, &first, &middle, &lastName); err != nil {
			return err
		}
		var oID int
		var entry, carrier any
		err := t.row(ctx, k.q("SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1"), w, d, c).
			Scan(&oID, &entry, &carrier)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // every loaded customer has an order; nothing to show otherwise
		}
		if err != nil {
			return err
		}
		rows, err := t.query(ctx, k.q("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"), w, d, oID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var item, supply, qty int
			var amount float64
			var delivered any
			if err := rows.Scan(&item, &supply, &qty, &amount, &delivered); err != nil {
				return err
			}
		}
		return rows.Err()
	}
}
