package vuser

import (
	"errors"
	"testing"
	"time"

	"tierbench/internal/metrics"
	"tierbench/internal/result"
)

// window records, per operation, completed transactions (rollbacks among them) and
// failures, and returns the window's cumulative snapshot.
func window(t *testing.T, ops []string, completed, rollbacks, failed map[string]int) *metrics.Snapshot {
	t.Helper()
	start := time.Unix(1000, 0)
	r := metrics.NewRegistry(ops, start)
	h := r.NewHandle()
	for _, op := range ops {
		for i := 0; i < completed[op]; i++ {
			c := metrics.Counts{}
			if i < rollbacks[op] {
				c.Rollbacks = 1
			}
			h.Record(op, time.Millisecond, c)
		}
		for i := 0; i < failed[op]; i++ {
			h.RecordError(op, start.Add(time.Duration(i)*time.Millisecond), op+" broke", metrics.Counts{})
		}
	}
	_, cum := r.Tick(start.Add(10*time.Second), start)
	return cum
}

func TestCheckErrors(t *testing.T) {
	ops := []string{"new_order", "payment", "delivery"}
	cases := []struct {
		name                         string
		completed, rollbacks, failed map[string]int
		maxShare                     float64
		wantFailed                   []string
		want                         string // "" for ok
	}{
		{"no errors, TPC-C's rollbacks are completed transactions",
			map[string]int{"new_order": 100, "payment": 100}, map[string]int{"new_order": 1}, nil, 0, nil, ""},
		// 3 of 200 failed: 1.5%.
		{"1.5% above 1%", map[string]int{"new_order": 97, "payment": 100}, nil, map[string]int{"new_order": 3}, 0.01, nil,
			"3 of 200 transactions failed (1.5%), more than the 1% allowed (--max-error-share): the throughput counts only the transactions that completed, which are not the mix asked for"},
		{"1.5% within 2%", map[string]int{"new_order": 97, "payment": 100}, nil, map[string]int{"new_order": 3}, 0.02, nil, ""},
		{"exactly the limit is ok", map[string]int{"new_order": 99}, nil, map[string]int{"new_order": 1}, 0.01, nil, ""},
		{"none allowed", map[string]int{"new_order": 999}, nil, map[string]int{"new_order": 1}, 0, nil,
			"1 of 1000 transactions failed (0.1%), more than the 0% allowed (--max-error-share): the throughput counts only the transactions that completed, which are not the mix asked for"},
		// delivery failed every time: 2 of 202 is under 1% but the type is missing from the TPS.
		{"a type that failed every time, under the share", map[string]int{"new_order": 100, "payment": 100}, nil, map[string]int{"delivery": 2}, 0.01,
			[]string{"delivery"}, "transaction type delivery failed every time it ran (2 errors, the first: delivery broke): the throughput counts only the transactions that completed, which are not the mix asked for"},
		{"all fail", nil, nil, map[string]int{"new_order": 4, "payment": 1}, 1, []string{"new_order", "payment"},
			"transaction type new_order failed every time it ran (4 errors, the first: new_order broke); transaction type payment failed every time it ran (1 error, the first: payment broke): the throughput counts only the transactions that completed, which are not the mix asked for"},
		{"a type that never ran fails nothing", map[string]int{"new_order": 10}, nil, nil, 0, nil, ""},
		{"a type that always rolls back completes", map[string]int{"new_order": 10}, map[string]int{"new_order": 10}, nil, 0, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckErrors(window(t, ops, c.completed, c.rollbacks, c.failed), ops, c.maxShare)
			if c.want == "" {
				if err != nil {
					t.Fatalf("want ok, got %v", err)
				}
				return
			}
			var tm *TooManyErrorsError
			if !errors.As(err, &tm) {
				t.Fatalf("want a TooManyErrorsError, got %v", err)
			}
			if err.Error() != c.want {
				t.Errorf("got  %s\nwant %s", err, c.want)
			}
			var names []string
			for _, f := range tm.Failed {
				names = append(names, f.Name)
			}
			if len(names) != len(c.wantFailed) {
				t.Fatalf("failed types %v, want %v", names, c.wantFailed)
			}
			for i := range names {
				if names[i] != c.wantFailed[i] {
					t.Errorf("failed types %v, want %v", names, c.wantFailed)
				}
			}
		})
	}
}

func TestPercent(t *testing.T) {
	for share, want := range map[float64]string{0: "0%", 0.01: "1%", 0.005: "0.5%", 812.0 / 2436: "33.3%", 1: "100%", 0.00123456: "0.123%"} {
		if got := percent(share); got != want {
			t.Errorf("percent(%v) = %q, want %q", share, got, want)
		}
	}
}

// TestRunFailsOnErrors: a window that completes with too many failures ends failed,
// with its measurements and a TooManyErrorsError; without failures it is ok.
func TestRunFailsOnErrors(t *testing.T) {
	f := &fakeWorkload{delay: time.Millisecond, errEvery: 10} // 10% of transactions fail
	sum, err := Run(t.Context(), f, Config{Users: 2, Duration: 300 * time.Millisecond, Interval: 100 * time.Millisecond, MaxErrorShare: 0.05})
	var tm *TooManyErrorsError
	if !errors.As(err, &tm) || sum == nil || sum.Status != result.StatusFailed || sum.Cause != tm.Error() || len(tm.Failed) != 0 {
		t.Fatalf("error %v, summary %+v: want a failed run with a TooManyErrorsError", err, sum)
	}
	if tm.Share() < 0.05 || sum.Measured.Count("") == 0 {
		t.Errorf("share %v of %d attempts; measured %d", tm.Share(), tm.Attempts, sum.Measured.Count(""))
	}
	sum, err = Run(t.Context(), f, Config{Users: 2, Duration: 300 * time.Millisecond, Interval: 100 * time.Millisecond, MaxErrorShare: 0.5})
	if err != nil || sum.Status != result.StatusOK {
		t.Errorf("with half allowed: %v", err)
	}
	if err := (Config{Users: 1, Duration: time.Second, MaxErrorShare: 1.5}).Validate(); err == nil {
		t.Error("a share above 1 was accepted")
	}
}
