package tpcc

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"iter"
	"strconv"
	"time"
)

// timeLayout is how timestamps are loaded and written by the transactions.
const timeLayout = "2006-01-02 15:04:05"

// null is how Engine.Load lines spell NULL (COPY and LOAD DATA read it as NULL).
const null = `\N`

// unit is one independently generated piece of a table: the index that makes data
// batch-addressable.
type unit struct {
	table string
	w     int // warehouse, 0 for item
	d     int // district, or part of item and stock
}

func (u unit) String() string { return fmt.Sprintf("%s w=%d d=%d", u.table, u.w, u.d) }

// rows is how many rows the unit generates, for the progress bar.
func (u unit) rows() int64 {
	switch u.table {
	case "item", "stock":
		return Items / 10
	case "warehouse":
		return 1
	case "district":
		return DistrictsPerWH
	case "customer", "history", "orders":
		return CustomersPerDistrict
	case "new_order":
		return NewOrdersPerDistrict
	case "order_line":
		return OrdersPerDistrict * 10 // expected: 5..15 lines, 10 on average
	}
	return 0
}

// units yields every unit of a population of w warehouses, the biggest first so that
// parallel loaders finish together. They are made as they are drawn: a list of them
// grew with W (62 units a warehouse, 32 bytes each) before the first row was loaded.
func units(warehouses int) iter.Seq[unit] {
	return func(yield func(unit) bool) {
		for w := 1; w <= warehouses; w++ {
			for _, u := range bigUnits(w) {
				if !yield(u) {
					return
				}
			}
		}
		for p := 0; p < 10; p++ {
			if !yield(unit{"item", 0, p}) {
				return
			}
		}
		for w := 1; w <= warehouses; w++ {
			for _, u := range smallUnits(w) {
				if !yield(u) {
					return
				}
			}
		}
	}
}

// bigUnits are warehouse w's units of ORDER_LINE and STOCK.
func bigUnits(w int) []unit {
	out := make([]unit, 0, DistrictsPerWH+10)
	for d := 1; d <= DistrictsPerWH; d++ {
		out = append(out, unit{"order_line", w, d})
	}
	for p := 0; p < 10; p++ {
		out = append(out, unit{"stock", w, p})
	}
	return out
}

// smallUnits are warehouse w's other units.
func smallUnits(w int) []unit {
	out := make([]unit, 0, 4*DistrictsPerWH+2)
	for d := 1; d <= DistrictsPerWH; d++ {
		out = append(out, unit{"customer", w, d}, unit{"history", w, d}, unit{"orders", w, d}, unit{"new_order", w, d})
	}
	return append(out, unit{"warehouse", w, 0}, unit{"district", w, 0})
}

// totalRows is how many rows units(warehouses) generate, as unit.rows counts them.
func totalRows(warehouses int) int64 {
	var perWarehouse int64
	for _, u := range append(bigUnits(1), smallUnits(1)...) {
		perWarehouse += u.rows()
	}
	return int64(warehouses)*perWarehouse + Items
}

// generator writes population rows in Engine.Load's format: '|' after every field.
type generator struct {
	seed  int64
	now   string // the load's timestamp, for every date column
	cLoad Constants
}

func newGenerator(seed int64, now time.Time) *generator {
	return &generator{seed: seed, now: now.UTC().Format(timeLayout), cLoad: loadConstants(seed)}
}

// write generates unit u into w.
func (g *generator) write(u unit, out io.Writer) error {
	bw := bufio.NewWriterSize(out, 256<<10)
	r := newRNG(g.seed, u.table, u.w, u.d)
	b := make([]byte, 0, 1024)
	emit := func() error {
		_, err := bw.Write(b)
		b = b[:0]
		return err
	}
	num := func(v int) { b = strconv.AppendInt(b, int64(v), 10); b = append(b, '|') }
	str := func(s string) { b = append(b, s...); b = append(b, '|') }
	field := func(f func([]byte) []byte) { b = f(b); b = append(b, '|') }
	astr := func(lo, hi int) { field(func(b []byte) []byte { return r.astring(b, lo, hi) }) }
	address := func() {
		astr(10, 20)
		astr(10, 20)
		astr(10, 20)
		astr(2, 2)
		field(r.zip)
	}

	switch u.table {
	case "item": // clause 4.3.3.1
		for i := u.d*Items/10 + 1; i <= (u.d+1)*Items/10; i++ {
			num(i)
			num(r.uniform(1, 10000))
			astr(14, 24)
			field(func(b []byte) []byte { return money(b, float64(r.uniform(100, 10000))/100) })
			field(r.data)
			b = append(b, '\n')
			if err := emit(); err != nil {
				return err
			}
		}
	case "warehouse":
		num(u.w)
		astr(6, 10)
		address()
		field(func(b []byte) []byte { return tax(b, float64(r.uniform(0, 2000))/10000) })
		str("300000.00")
		b = append(b, '\n')
	case "district":
		for d := 1; d <= DistrictsPerWH; d++ {
			num(d)
			num(u.w)
			astr(6, 10)
			address()
			field(func(b []byte) []byte { return tax(b, float64(r.uniform(0, 2000))/10000) })
			str("30000.00")
			num(OrdersPerDistrict + 1)
			b = append(b, '\n')
		}
	case "customer":
		for c := 1; c <= CustomersPerDistrict; c++ {
			num(c)
			num(u.d)
			num(u.w)
			astr(8, 16)
			str("OE")
			if c <= 1000 { // clause 4.3.3.1: the first 1000 take every name once
				str(LastName(c - 1))
			} else {
				str(LastName(r.nurand(255, g.cLoad.CLast, 0, 999)))
			}
			address()
			field(func(b []byte) []byte { return r.nstring(b, 16, 16) })
			str(g.now)
			if r.IntN(10) == 0 {
				str("BC")
			} else {
				str("GC")
			}
			str("50000.00")
			field(func(b []byte) []byte { return tax(b, float64(r.uniform(0, 5000))/10000) })
			str("-10.00")
			str("10.00")
			num(1)
			num(0)
			astr(300, 500)
			b = append(b, '\n')
			if err := emit(); err != nil {
				return err
			}
		}
	case "history":
		for c := 1; c <= CustomersPerDistrict; c++ {
			num(c)
			num(u.d)
			num(u.w)
			num(u.d)
			num(u.w)
			str(g.now)
			str("10.00")
			astr(12, 24)
			b = append(b, '\n')
			if err := emit(); err != nil {
				return err
			}
		}
	case "orders":
		perm := newRNG(g.seed, "customer-permutation", u.w, u.d).Perm(CustomersPerDistrict)
		lines := newRNG(g.seed, "order-lines", u.w, u.d)
		for o := 1; o <= OrdersPerDistrict; o++ {
			num(o)
			num(u.d)
			num(u.w)
			num(perm[o-1] + 1)
			str(g.now)
			if o < firstNewOrder {
				num(r.uniform(1, 10))
			} else {
				str(null)
			}
			num(lines.uniform(5, 15))
			num(1)
			b = append(b, '\n')
			if err := emit(); err != nil {
				return err
			}
		}
	case "new_order":
		for o := firstNewOrder; o <= OrdersPerDistrict; o++ {
			num(o)
			num(u.d)
			num(u.w)
			b = append(b, '\n')
		}
	case "order_line":
		lines := newRNG(g.seed, "order-lines", u.w, u.d) // the same O_OL_CNT as orders
		for o := 1; o <= OrdersPerDistrict; o++ {
			n := lines.uniform(5, 15)
			for l := 1; l <= n; l++ {
				num(o)
				num(u.d)
				num(u.w)
				num(l)
				num(r.uniform(1, Items))
				num(u.w)
				if o < firstNewOrder {
					str(g.now)
				} else {
					str(null)
				}
				num(5)
				if o < firstNewOrder {
					str("0.00")
				} else {
					field(func(b []byte) []byte { return money(b, float64(r.uniform(1, 999999))/100) })
				}
				astr(24, 24)
				b = append(b, '\n')
			}
			if err := emit(); err != nil {
				return err
			}
		}
	case "stock":
		for i := u.d*Items/10 + 1; i <= (u.d+1)*Items/10; i++ {
			num(i)
			num(u.w)
			num(r.uniform(10, 100))
			for range 10 {
				astr(24, 24)
			}
			num(0)
			num(0)
			num(0)
			field(r.data)
			b = append(b, '\n')
			if err := emit(); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("tpcc: no generator for table %s", u.table)
	}
	if err := emit(); err != nil {
		return err
	}
	return bw.Flush()
}

// Fingerprint is a SHA-256 over the whole population of the given size, seed and
// load time, generated unit by unit in a fixed order: equal fingerprints mean equal data.
func Fingerprint(warehouses int, seed int64, now time.Time) (string, error) {
	g := newGenerator(seed, now)
	h := sha256.New()
	for u := range units(warehouses) {
		fmt.Fprintf(h, "%s\n", u)
		if err := g.write(u, h); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
