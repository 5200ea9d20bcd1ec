package tpcc

import "context"

// stockLevel draws a Stock-Level's input (clause 2.8.1) and returns its body (2.8.2):
// how many distinct items of the district's last 20 orders are below a threshold. It
// only reads, in the terminal's fixed district.
func (k *worker) stockLevel() body {
	w, d := k.wID, k.dID
	threshold := k.uniform(10, 20)
	return func(ctx context.Context, t *txn) error {
		var next int
		if err := t.row(ctx, k.q("SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?"), w, d).Scan(&next); err != nil {
			return err
		}
		var low int
		return t.row(ctx, k.q(`SELECT COUNT(DISTINCT s.s_i_id) FROM order_line ol JOIN stock s ON s.s_w_id = ? AND s.s_i_id = ol.ol_i_id
WHERE ol.ol_w_id = ? AND ol.ol_d_id = ? AND ol.ol_o_id < ? AND ol.ol_o_id >= ? AND s.s_quantity < ?`),
			w, w, d, next, next-20, threshold).Scan(&low)
	}
}
