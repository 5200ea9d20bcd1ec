package tpcc

import (
	"context"
	"database/sql"
	"fmt"
)

// payment draws a Payment's input (clause 2.5.1) and returns its body (2.5.2).
func (k *worker) payment() body {
	w := k.wID
	d := k.uniform(1, DistrictsPerWH)
	cw, cd := w, d
	if k.wl.cfg.Warehouses > 1 && k.r.IntN(100) < 15 { // 15% through a remote warehouse (2.5.1.2)
		cw, cd = k.otherWarehouse(), k.uniform(1, DistrictsPerWH)
	}
	cID, last := k.customer()
	amount := float64(k.uniform(100, 500000)) / 100

	return func(ctx context.Context, t *txn) error {
		c := cID
		if _, err := t.exec(ctx, k.q("UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?"), amount, w); err != nil {
			return err
		}
		var wName, dName string
		var sink [5]any
		if err := t.row(ctx, k.q("SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?"), w).
			Scan(&wName, &sink[0], &sink[1], &sink[2], &sink[3], &sink[4]); err != nil {
			return err
		}
		if _, err := t.exec(ctx, k.q("UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?"), amount, w, d); err != nil {
			return err
		}
		if err := t.row(ctx, k.q("SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = ? AND d_id = ?"), w, d).
			Scan(&dName, &sink[0], &sink[1], &sink[2], &sink[3], &sink[4]); err != nil {
			return err
		}
		if c == 0 {
			var err error
			if c, err = k.customerByName(ctx, t, cw, cd, last); err != nil {
				return err
			}
		}
		var credit string
		var balance float64
		var cs [11]any
		if err := t.row(ctx, k.q("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit_lim, c_discount, c_balance, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?{FOR UPDATE}"), cw, cd, c).
			Scan(&cs[0], &cs[1], &cs[2], &cs[3], &cs[4], &cs[5], &cs[6], &cs[7], &cs[8], &cs[9], &cs[10], &sink[0], &balance, &credit); err != nil {
			return err
		}
		if _, err := t.exec(ctx, k.q("UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
			amount, amount, cw, cd, c); err != nil {
			return err
		}
		if credit == "BC" { // clause 2.5.2.2: bad credit keeps a log in C_DATA
			var data string
			if err := t.row(ctx, k.q("SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"), cw, cd, c).Scan(&data); err != nil {
				return err
			}
			data = fmt.Sprintf("%d %d %d %d %d %.2f %s", c, cd, cw, d, w, amount, data)
			if len(data) > 500 {
				data = data[:500]
			}
			if _, err := t.exec(ctx, k.q("UPDATE customer SET c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"), data, cw, cd, c); err != nil {
				return err
			}
		}
		if _, err := t.exec(ctx, k.q("INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
			c, cd, cw, d, w, now(), amount, wName+"    "+dName); err != nil {
			return err
		}
		return nil
	}
}

// customerByName finds the customer in the middle of those with a last name, sorted
// by first name: position ceil(n/2) (clause 2.5.2.2).
func (k *worker) customerByName(ctx context.Context, t *txn, w, d int, last string) (int, error) {
	rows, err := t.query(ctx, k.q("SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"), w, d, last)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var ids []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			return 0, err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("no customer named %s in warehouse %d district %d: %w", last, w, d, sql.ErrNoRows)
	}
	return ids[(len(ids)+1)/2-1], nil
}
