package tpcc

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"tierbench/internal/engine"
)

// TestUnitsStream: the units of a population are made as they are drawn. A list made
// up front (`tpcc load --warehouses 100000000000` listed 62 units a warehouse before
// loading a row) reached 10.5 GB in 45 s; drawing the first units of a million
// warehouses allocates next to nothing (the list took 2 GB).
func TestUnitsStream(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var got []unit
	for u := range units(1_000_000) {
		got = append(got, u)
		if len(got) == 25 {
			break
		}
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("drawing 25 units allocated %d bytes", grew)
	}
	// The biggest first: warehouse 1's ten ORDER_LINE districts and ten STOCK parts,
	// then warehouse 2's.
	want := []unit{{"order_line", 1, 1}, {"order_line", 1, 10}, {"stock", 1, 0}, {"stock", 1, 9}, {"order_line", 2, 1}, {"order_line", 2, 5}}
	for i, at := range []int{0, 9, 10, 19, 20, 24} {
		if got[at] != want[i] {
			t.Errorf("unit %d is %v, want %v", at, got[at], want[i])
		}
	}
	// Every unit once: 62 a warehouse and 10 of ITEM.
	n := 0
	seen := map[unit]bool{}
	for u := range units(3) {
		n++
		seen[u] = true
	}
	if n != 3*62+10 || len(seen) != n {
		t.Errorf("W=3: %d units, %d distinct; want 196", n, len(seen))
	}
}

// TestTotalRows against clause 4.3.3.1's cardinalities, order lines counted at their
// expected 10 an order: per warehouse 1 + 10 districts + 30,000 customers, history
// rows and orders + 9,000 new orders + 300,000 order lines + 100,000 stock = 499,011,
// plus 100,000 items once.
func TestTotalRows(t *testing.T) {
	for w, want := range map[int]int64{1: 599_011, 4: 2_096_044, 100_000_000_000: 49_901_100_000_100_000} {
		if got := totalRows(w); got != want {
			t.Errorf("totalRows(%d) = %d, want %d", w, got, want)
		}
	}
}

// TestLoadNeed: 110 MB a warehouse and 1 GiB of log on the data's disk; loaders'
// memory, whatever W.
func TestLoadNeed(t *testing.T) {
	d := &engine.Dialect{Name: "postgres", Footprint: engine.Footprint{SessionMemory: 2 << 20}}
	n := LoadNeed(1000, 2, d, false, "/srv/db")
	if n.Disk != 1000*110e6+1<<30 || n.DiskDir != "/srv/db" || n.Memory != 2*(2<<20+2<<20) || n.What != "tpcc load --warehouses 1000" {
		t.Errorf("need %+v", n)
	}
	if big := LoadNeed(100_000_000_000, 2, d, false, "/srv/db"); big.Memory != n.Memory {
		t.Errorf("memory grows with W: %v against %v", big.Memory, n.Memory)
	}
	if ext := LoadNeed(1000, 2, d, true, ""); ext.Disk != 0 || ext.Memory != 2*(2<<20) {
		t.Errorf("external: %+v", ext)
	}
}

// TestHugeLoadStops: a load of the most warehouses there may be, 2^31-1 (run with
// --ignore-limits), streams: it starts loading at once and stops at Ctrl-C with
// context.Canceled.
func TestHugeLoadStops(t *testing.T) {
	e := openSQLite(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Load(ctx, e, LoadConfig{Warehouses: MaxWarehouses, Seed: 1, Now: fixedNow})
		done <- err
	}()
	// Cancel once the first rows are in, as a user's Ctrl-C would.
	for i := 0; ; i++ {
		var n int64
		if err := e.DB().QueryRow("SELECT COUNT(*) FROM order_line").Scan(&n); err == nil && n > 0 {
			break
		}
		if i == 600 {
			t.Fatal("no row loaded after 60 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Load returned %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Load did not stop within a minute of the cancel")
	}
}
