package vuser

import (
	"context"
	"math"
	"testing"
	"time"

	"tierbench/internal/result"
)

// gatedWorkload's transactions report waiting 2 ms for its pool and 1 ms for a
// critical section, then take 5 ms.
type gatedWorkload struct{ fakeWorkload }

func (g *gatedWorkload) Gates() []Gate {
	return []Gate{{Name: "pool", Kind: "pool", Holders: 1}, {Name: "cs", Kind: "critical", Holders: 1}}
}

func (g *gatedWorkload) NewWorker(ctx context.Context, user int) (Worker, error) {
	return &gatedWorker{waits: make([]time.Duration, 2)}, nil
}

type gatedWorker struct{ waits []time.Duration }

func (w *gatedWorker) Next() Txn    { return Txn{Op: "t"} }
func (w *gatedWorker) Close() error { return nil }
func (w *gatedWorker) Run(ctx context.Context, op string) Outcome {
	select {
	case <-time.After(5 * time.Millisecond):
	case <-ctx.Done():
		return Outcome{Err: ctx.Err()}
	}
	w.waits[0], w.waits[1] = 2*time.Millisecond, time.Millisecond
	return Outcome{Queries: 1, Waits: w.waits}
}

// TestAppWaits: each measured transaction waited 2 ms for the pool and 1 ms for the
// section, so over the window the pool's seconds are 2 ms times the transactions, a
// mean of that over the window's length users waiting, and that over the 2 users the
// share of their time; the per-transaction report says 2 ms and 1 ms.
func TestAppWaits(t *testing.T) {
	g := &gatedWorkload{}
	sum, err := Run(context.Background(), g, Config{Users: 2, Duration: 300 * time.Millisecond, Interval: 100 * time.Millisecond})
	if err != nil || sum.Status != result.StatusOK {
		t.Fatalf("run: %v, %+v", err, sum)
	}
	l := NewLevelReport(sum, []string{"t"})
	n := float64(sum.Measured.Count("t"))
	window := sum.Measured.Duration().Seconds()
	if len(l.AppWaits) != 2 || n == 0 {
		t.Fatalf("app waits %+v over %v transactions", l.AppWaits, n)
	}
	for i, perTxn := range []float64{0.002, 0.001} {
		w := l.AppWaits[i]
		secs := n * perTxn
		if w.Gate != g.Gates()[i] || math.Abs(w.Seconds-secs) > 0.0005 ||
			math.Abs(w.Waiting-secs/window) > 0.0005 || math.Abs(w.SharePct-100*secs/window/2) > 0.005 {
			t.Errorf("gate %d: %+v; want %.3f s, %.3f users waiting, %.2f%% of 2 users' %.3f s", i, w, secs, secs/window, 100*secs/window/2, window)
		}
	}
	tx := l.Transactions["t"]
	if tx.Waits["pool"].MeanMs != 2 || tx.Waits["cs"].MeanMs != 1 {
		t.Errorf("per transaction waits %+v, want pool 2 ms and cs 1 ms", tx.Waits)
	}
	// The verdict's facts carry them by name, kind and holders.
	r := &RunResult{Users: 2}
	windows, _ := r.LevelWindows([]LevelReport{l})
	if aw := windows[0].Facts.AppWaits; len(aw) != 2 || aw[0].Name != "pool" || aw[0].Kind != "pool" || aw[1].Waiting != l.AppWaits[1].Waiting {
		t.Errorf("verdict facts %+v", aw)
	}
}
