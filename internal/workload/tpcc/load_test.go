package tpcc

import (
	"context"
	"testing"
	"time"

	"tierbench/internal/engine"
	_ "tierbench/internal/engine/sqlite"
)

var fixedNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func openSQLite(t *testing.T) engine.Engine {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Config{Name: "sqlite", Dir: t.TempDir(),
		Settings: map[string]string{"synchronous": "OFF"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func count(t *testing.T, e engine.Engine, q string) int64 {
	t.Helper()
	var n int64
	if err := e.DB().QueryRowContext(context.Background(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// loadedSQLite is a W=1 SQLite population shared by the tests that only read it or
// change it in ways they undo.
func loadW1(t *testing.T, e engine.Engine) *LoadInfo {
	t.Helper()
	start := time.Now()
	info, err := Load(context.Background(), e, LoadConfig{Warehouses: 1, Seed: 42, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: loaded W=1 in %v", e.Dialect().Name, time.Since(start).Round(time.Millisecond))
	return info
}

func checkCardinalities(t *testing.T, e engine.Engine, info *LoadInfo) {
	t.Helper()
	want := map[string]int64{"item": 100000, "warehouse": 1, "district": 10, "customer": 30000, "history": 30000,
		"orders": 30000, "new_order": 9000, "stock": 100000}
	for table, n := range want {
		if got := count(t, e, "SELECT COUNT(*) FROM "+table); got != n {
			t.Errorf("%s has %d rows, want %d", table, got, n)
		}
		if info.Rows[table] != n {
			t.Errorf("load reported %d rows for %s, want %d", info.Rows[table], table, n)
		}
	}
	// ORDER-LINE: 5..15 lines per order, 10 on average (clause 4.3.3.1).
	ol := count(t, e, "SELECT COUNT(*) FROM order_line")
	if ol < 297000 || ol > 303000 {
		t.Errorf("order_line has %d rows, want about 300000", ol)
	}
	if got := count(t, e, "SELECT SUM(o_ol_cnt) FROM orders"); got != ol {
		t.Errorf("sum(o_ol_cnt) %d != order_line rows %d", got, ol)
	}
	checks := map[string]int64{
		"SELECT COUNT(*) FROM orders WHERE o_carrier_id IS NULL":                          9000,
		"SELECT COUNT(*) FROM order_line WHERE ol_delivery_d IS NULL AND ol_o_id <= 2100": 0,
		"SELECT COUNT(DISTINCT c_last) FROM customer":                                     1000,
		"SELECT COUNT(DISTINCT o_c_id) FROM orders":                                       3000,
		"SELECT COUNT(*) FROM customer WHERE c_credit = 'BC'":                             -1,
	}
	for q, n := range checks {
		got := count(t, e, q)
		if n >= 0 && got != n {
			t.Errorf("%s = %d, want %d", q, got, n)
		}
		if n < 0 && (got < 2500 || got > 3500) { // 10% of 30000
			t.Errorf("%s = %d, want about 3000", q, got)
		}
	}
	if got := count(t, e, "SELECT COUNT(*) FROM item WHERE i_data LIKE '%ORIGINAL%'"); got < 9000 || got > 11000 {
		t.Errorf("%d items with ORIGINAL, want about 10000", got)
	}
}

func checkAll(t *testing.T, e engine.Engine) {
	t.Helper()
	cs, err := Check(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if !c.Passed {
			t.Errorf("condition %d (%s) failed: %d violations %s", c.Number, c.Text, c.Violations, c.Error)
		}
	}
	if len(cs) != 12 {
		t.Errorf("%d conditions, want 12", len(cs))
	}
}

func TestLoadSQLite(t *testing.T) {
	e := openSQLite(t)
	info := loadW1(t, e)
	checkCardinalities(t, e, info)
	checkLoadedData(t, e, 1, 42)
	checkAll(t, e)

	t.Run("CorruptionFailsTheRightConditions", func(t *testing.T) {
		for _, tc := range []struct {
			name          string
			corrupt, undo string
			want          []int
		}{
			{"district ytd", "UPDATE district SET d_ytd = d_ytd + 1 WHERE d_id = 3", "UPDATE district SET d_ytd = d_ytd - 1 WHERE d_id = 3", []int{1, 9}},
			{"order line count", "UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_d_id = 2 AND o_id = 17", "UPDATE orders SET o_ol_cnt = o_ol_cnt - 1 WHERE o_d_id = 2 AND o_id = 17", []int{4, 6}},
			{"customer balance", "UPDATE customer SET c_balance = c_balance + 5 WHERE c_d_id = 4 AND c_id = 99", "UPDATE customer SET c_balance = c_balance - 5 WHERE c_d_id = 4 AND c_id = 99", []int{10, 12}},
			{"new order gap", "DELETE FROM new_order WHERE no_d_id = 5 AND no_o_id = 2500", "INSERT INTO new_order VALUES (2500, 5, 1)", []int{3, 5, 11}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ctx := context.Background()
				if _, err := e.DB().ExecContext(ctx, tc.corrupt); err != nil {
					t.Fatal(err)
				}
				defer func() {
					if _, err := e.DB().ExecContext(ctx, tc.undo); err != nil {
						t.Fatal(err)
					}
				}()
				cs, err := Check(ctx, e)
				if err != nil {
					t.Fatal(err)
				}
				var failed []int
				for _, c := range cs {
					if !c.Passed {
						failed = append(failed, c.Number)
					}
				}
				if !equalInts(failed, tc.want) {
					t.Errorf("failed conditions %v, want %v", failed, tc.want)
				}
				if AllPassed(cs) {
					t.Error("AllPassed is true on a corrupted database")
				}
			})
		}
	})
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFingerprintDeterministic(t *testing.T) {
	a, err := Fingerprint(1, 7, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Fingerprint(1, 7, fixedNow)
	c, _ := Fingerprint(1, 8, fixedNow)
	if a != b {
		t.Errorf("same seed, different data: %s vs %s", a, b)
	}
	if a == c {
		t.Error("different seeds gave the same data")
	}
}
