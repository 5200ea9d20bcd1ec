package tpcc

import (
	"bufio"
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"tierbench/internal/engine"
)

// aggregate is an integer summary of one column that every engine computes alike.
type aggregate struct {
	table, column string
	length        bool // sum of the lengths instead of the values
}

var aggregates = []aggregate{
	{"stock", "s_quantity", false}, {"stock", "s_data", true}, {"item", "i_im_id", false},
	{"customer", "c_data", true}, {"customer", "c_last", true}, {"orders", "o_c_id", false},
	{"orders", "o_ol_cnt", false}, {"order_line", "ol_i_id", false}, {"order_line", "ol_dist_info", true},
	{"history", "h_data", true},
}

// generatedAggregates computes the aggregates from the generator's own output.
func generatedAggregates(t *testing.T, warehouses int, seed int64) []int64 {
	t.Helper()
	g := newGenerator(seed, fixedNow)
	out := make([]int64, len(aggregates))
	for u := range units(warehouses) {
		var buf bytes.Buffer
		if err := g.write(u, &buf); err != nil {
			t.Fatal(err)
		}
		cols := tableByName(u.table).columnNames()
		for i, a := range aggregates {
			if a.table != u.table {
				continue
			}
			idx := -1
			for j, c := range cols {
				if c == a.column {
					idx = j
				}
			}
			sc := bufio.NewScanner(bytes.NewReader(buf.Bytes()))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				f := strings.Split(sc.Text(), "|")[idx]
				if a.length {
					out[i] += int64(len(f))
				} else {
					n, _ := strconv.ParseInt(f, 10, 64)
					out[i] += n
				}
			}
		}
	}
	return out
}

// checkLoadedData compares the database's aggregates with the generator's: the data
// loaded is exactly the data generated, whatever the engine and the loaders' order.
func checkLoadedData(t *testing.T, e engine.Engine, warehouses int, seed int64) {
	t.Helper()
	want := generatedAggregates(t, warehouses, seed)
	for i, a := range aggregates {
		expr := "SUM(" + a.column + ")"
		if a.length {
			expr = "SUM(LENGTH(" + a.column + "))"
		}
		var got int64
		q := "SELECT " + expr + " FROM " + a.table
		if err := e.DB().QueryRowContext(context.Background(), q).Scan(&got); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got != want[i] {
			t.Errorf("%s = %d, generated data gives %d", q, got, want[i])
		}
	}
}
