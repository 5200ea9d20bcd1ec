package tpcc

import (
	"fmt"
	"strings"

	"tierbench/internal/engine"
)

// Tables lists TPC-C's tables in load order (clause 1.3). ORDER is a reserved word
// everywhere, so the table is called orders.
var Tables = []string{"warehouse", "district", "customer", "history", "orders", "new_order", "order_line", "item", "stock"}

// column is name and type; type "m(p,s)" is money, "ts" a timestamp.
type column struct{ name, typ string }

type table struct {
	name    string
	columns []column
	key     string
}

func cols(spec string) []column {
	var out []column
	for _, f := range strings.Split(spec, ",") {
		f = strings.TrimSpace(f)
		name, typ, _ := strings.Cut(f, " ")
		out = append(out, column{name, strings.ReplaceAll(typ, ";", ",")})
	}
	return out
}

// schema is clause 1.3's tables; money as m(p;s) (';' so the list splits on ',').
var schema = []table{
	{"warehouse", cols("w_id INT, w_name VARCHAR(10), w_street_1 VARCHAR(20), w_street_2 VARCHAR(20), w_city VARCHAR(20), w_state CHAR(2), w_zip CHAR(9), w_tax m(4;4), w_ytd m(12;2)"), "w_id"},
	{"district", cols("d_id INT, d_w_id INT, d_name VARCHAR(10), d_street_1 VARCHAR(20), d_street_2 VARCHAR(20), d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9), d_tax m(4;4), d_ytd m(12;2), d_next_o_id INT"), "d_w_id, d_id"},
	{"customer", cols("c_id INT, c_d_id INT, c_w_id INT, c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16), c_street_1 VARCHAR(20), c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state CHAR(2), c_zip CHAR(9), c_phone CHAR(16), c_since ts, c_credit CHAR(2), c_credit_lim m(12;2), c_discount m(4;4), c_balance m(12;2), c_ytd_payment m(12;2), c_payment_cnt INT, c_delivery_cnt INT, c_data VARCHAR(500)"), "c_w_id, c_d_id, c_id"},
	{"history", cols("h_c_id INT, h_c_d_id INT, h_c_w_id INT, h_d_id INT, h_w_id INT, h_date ts, h_amount m(6;2), h_data VARCHAR(24)"), ""},
	{"orders", cols("o_id INT, o_d_id INT, o_w_id INT, o_c_id INT, o_entry_d ts, o_carrier_id INT, o_ol_cnt INT, o_all_local INT"), "o_w_id, o_d_id, o_id"},
	{"new_order", cols("no_o_id INT, no_d_id INT, no_w_id INT"), "no_w_id, no_d_id, no_o_id"},
	{"order_line", cols("ol_o_id INT, ol_d_id INT, ol_w_id INT, ol_number INT, ol_i_id INT, ol_supply_w_id INT, ol_delivery_d ts, ol_quantity INT, ol_amount m(6;2), ol_dist_info CHAR(24)"), "ol_w_id, ol_d_id, ol_o_id, ol_number"},
	{"item", cols("i_id INT, i_im_id INT, i_name VARCHAR(24), i_price m(5;2), i_data VARCHAR(50)"), "i_id"},
	{"stock", cols("s_i_id INT, s_w_id INT, s_quantity INT, s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24), s_dist_05 CHAR(24), s_dist_06 CHAR(24), s_dist_07 CHAR(24), s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd INT, s_order_cnt INT, s_remote_cnt INT, s_data VARCHAR(50)"), "s_w_id, s_i_id"},
}

// indexes are the secondary indexes the transactions need: customers by last name
// (Payment, Order-Status) and a customer's latest order (Order-Status).
var indexes = []string{
	"CREATE INDEX customer_name ON customer (c_w_id, c_d_id, c_last, c_first)",
	"CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)",
}

func tableByName(name string) table {
	for _, t := range schema {
		if t.name == name {
			return t
		}
	}
	panic("tpcc: no table " + name)
}

func (t table) columnNames() []string {
	out := make([]string, len(t.columns))
	for i, c := range t.columns {
		out[i] = c.name
	}
	return out
}

// createSQL is the CREATE TABLE statement for the dialect.
func (t table) createSQL(d *engine.Dialect) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (", t.name)
	for i, c := range t.columns {
		if i > 0 {
			b.WriteString(", ")
		}
		typ := c.typ
		switch {
		case strings.HasPrefix(typ, "m("):
			var p, s int
			fmt.Sscanf(typ, "m(%d,%d)", &p, &s)
			typ = d.ColumnType("decimal", p, s)
		case typ == "ts":
			typ = d.ColumnType("timestamp")
		}
		b.WriteString(c.name + " " + typ)
		if c.name != "o_carrier_id" && c.name != "ol_delivery_d" {
			b.WriteString(" NOT NULL")
		}
	}
	if t.key != "" {
		fmt.Fprintf(&b, ", PRIMARY KEY (%s)", t.key)
	}
	b.WriteString(")" + d.TableSuffix)
	return b.String()
}

// bind replaces each '?' in q with the dialect's placeholder for its position.
func bind(d *engine.Dialect, q string) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteString(d.Param(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}
