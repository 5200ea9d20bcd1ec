package tpcc

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"tierbench/internal/engine"
)

// Condition is one consistency condition of clause 3.3.2 and how it came out.
type Condition struct {
	Number int    `json:"number"`
	Clause string `json:"clause"`
	Text   string `json:"text"`
	Passed bool   `json:"passed"`
	// Violations counts the warehouses, districts, orders, order-lines or customers
	// that break the condition.
	Violations int64  `json:"violations"`
	Error      string `json:"error,omitempty"`
}

// eps allows half a cent of rounding where money is stored as a float (SQLite's REAL).
const eps = "0.005"

// conditions are clause 3.3.2.1 to 3.3.2.12, each as queries that count violations.
var conditions = []struct {
	text    string
	queries []string
}{
	{"W_YTD = sum(D_YTD) for each warehouse", []string{`
SELECT COUNT(*) FROM warehouse w LEFT JOIN (SELECT d_w_id, SUM(d_ytd) AS s FROM district GROUP BY d_w_id) d ON d.d_w_id = w.w_id
WHERE d.s IS NULL OR ABS(w.w_ytd - d.s) > ` + eps}},
	{"D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) for each district", []string{`
SELECT COUNT(*) FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) AS m FROM orders GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) AS m FROM new_order GROUP BY no_w_id, no_d_id) n ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
WHERE o.m IS NULL OR d.d_next_o_id - 1 <> o.m OR (n.m IS NOT NULL AND n.m <> o.m)`}},
	{"max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER for each district", []string{`
SELECT COUNT(*) FROM (SELECT MAX(no_o_id) - MIN(no_o_id) + 1 AS span, COUNT(*) AS n FROM new_order GROUP BY no_w_id, no_d_id) x
WHERE x.span <> x.n`}},
	{"sum(O_OL_CNT) = rows in ORDER-LINE for each district", []string{`
SELECT COUNT(*) FROM (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS s FROM orders GROUP BY o_w_id, o_d_id) o
LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id) l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id
WHERE l.n IS NULL OR l.n <> o.s`}},
	{"O_CARRIER_ID is null exactly for orders with a NEW-ORDER row", []string{`
SELECT COUNT(*) FROM orders o LEFT JOIN new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id
WHERE (o.o_carrier_id IS NULL AND n.no_o_id IS NULL) OR (o.o_carrier_id IS NOT NULL AND n.no_o_id IS NOT NULL)`, `
SELECT COUNT(*) FROM new_order n LEFT JOIN orders o ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id
WHERE o.o_id IS NULL`}},
	{"O_OL_CNT = rows in ORDER-LINE for each order", []string{`
SELECT COUNT(*) FROM orders o
LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) l
  ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
WHERE l.n IS NULL OR l.n <> o.o_ol_cnt`}},
	{"OL_DELIVERY_D is null exactly when the order's O_CARRIER_ID is null", []string{`
SELECT COUNT(*) FROM order_line l JOIN orders o ON o.o_w_id = l.ol_w_id AND o.o_d_id = l.ol_d_id AND o.o_id = l.ol_o_id
WHERE (l.ol_delivery_d IS NULL AND o.o_carrier_id IS NOT NULL) OR (l.ol_delivery_d IS NOT NULL AND o.o_carrier_id IS NULL)`}},
	{"W_YTD = sum(H_AMOUNT) for each warehouse", []string{`
SELECT COUNT(*) FROM warehouse w LEFT JOIN (SELECT h_w_id, SUM(h_amount) AS s FROM history GROUP BY h_w_id) h ON h.h_w_id = w.w_id
WHERE h.s IS NULL OR ABS(w.w_ytd - h.s) > ` + eps}},
	{"D_YTD = sum(H_AMOUNT) for each district", []string{`
SELECT COUNT(*) FROM district d LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) AS s FROM history GROUP BY h_w_id, h_d_id) h
  ON h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id
WHERE h.s IS NULL OR ABS(d.d_ytd - h.s) > ` + eps}},
	{"C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT) for each customer", []string{`
SELECT COUNT(*) FROM customer c
LEFT JOIN (` + deliveredPerCustomer + `) ol ON ol.cw = c.c_w_id AND ol.cd = c.c_d_id AND ol.cid = c.c_id
LEFT JOIN (SELECT h_c_w_id AS cw, h_c_d_id AS cd, h_c_id AS cid, SUM(h_amount) AS s FROM history GROUP BY h_c_w_id, h_c_d_id, h_c_id) h
  ON h.cw = c.c_w_id AND h.cd = c.c_d_id AND h.cid = c.c_id
WHERE ABS(c.c_balance - (COALESCE(ol.s, 0) - COALESCE(h.s, 0))) > ` + eps}},
	// The spec states 2100, which holds until the first Delivery; each delivered order
	// (one with O_ID > 2100 and a carrier) adds one, so that is the general form.
	{"rows in ORDER - rows in NEW-ORDER = 2100 + orders delivered since the load, for each district", []string{`
SELECT COUNT(*) FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, COUNT(*) AS n, SUM(CASE WHEN o_id > 2100 AND o_carrier_id IS NOT NULL THEN 1 ELSE 0 END) AS delivered
  FROM orders GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, COUNT(*) AS n FROM new_order GROUP BY no_w_id, no_d_id) n ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
WHERE o.n IS NULL OR o.n - COALESCE(n.n, 0) <> 2100 + o.delivered`}},
	{"C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT) for each customer", []string{`
SELECT COUNT(*) FROM customer c
LEFT JOIN (` + deliveredPerCustomer + `) ol ON ol.cw = c.c_w_id AND ol.cd = c.c_d_id AND ol.cid = c.c_id
WHERE ABS(c.c_balance + c.c_ytd_payment - COALESCE(ol.s, 0)) > ` + eps}},
}

const deliveredPerCustomer = `SELECT o.o_w_id AS cw, o.o_d_id AS cd, o.o_c_id AS cid, SUM(l.ol_amount) AS s
  FROM orders o JOIN order_line l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
  WHERE l.ol_delivery_d IS NOT NULL GROUP BY o.o_w_id, o.o_d_id, o.o_c_id`

// Check evaluates the twelve consistency conditions of clause 3.3.2. It returns every
// condition's outcome; the error is for a database that cannot be checked at all.
func Check(ctx context.Context, e engine.Engine) ([]Condition, error) {
	db := e.DB()
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM warehouse").Scan(&n); err != nil {
		return nil, fmt.Errorf("tpcc: no TPC-C database here (run `tierbench tpcc load` first): %w", err)
	}
	out := make([]Condition, 0, len(conditions))
	for i, c := range conditions {
		res := Condition{Number: i + 1, Clause: "3.3.2." + strconv.Itoa(i+1), Text: c.text}
		for _, q := range c.queries {
			var v int64
			if err := db.QueryRowContext(ctx, strings.TrimSpace(q)).Scan(&v); err != nil {
				if ctx.Err() != nil {
					return out, ctx.Err()
				}
				res.Error = err.Error()
				break
			}
			res.Violations += v
		}
		res.Passed = res.Error == "" && res.Violations == 0
		out = append(out, res)
	}
	return out, nil
}

// AllPassed reports whether every condition passed.
func AllPassed(cs []Condition) bool {
	for _, c := range cs {
		if !c.Passed {
			return false
		}
	}
	return len(cs) == len(conditions)
}
