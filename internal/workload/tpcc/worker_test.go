package tpcc

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/workload/vuser"
)

// interruptInLockWait interrupts a run while its users wait for row locks another
// session holds. The users' statements run under a context that never ends, so only
// the session's Cancel (engine.Canceller), armed on the run's context, can stop them:
// the run must end within seconds, as interrupted rather than failed, and leave the
// database consistent. lockWaits counts the server's sessions waiting for a lock.
func interruptInLockWait(t *testing.T, e engine.Engine, lockWaits string) {
	ctx := context.Background()
	locker, err := e.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	tx, err := locker.Conn().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// Payment updates its warehouse's row, New-Order and Payment a district row.
	for _, q := range []string{"UPDATE warehouse SET w_ytd = w_ytd WHERE w_id = 1", "UPDATE district SET d_ytd = d_ytd WHERE d_w_id = 1"} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Should nothing cancel the users, they go on once the locks go. The times are
	// generous: two suites side by side on 2 cores once took more than 15 s to bring
	// both users to the locks.
	release := time.AfterFunc(2*time.Minute, func() { tx.Rollback() })
	defer release.Stop()

	runCtx, interrupt := context.WithCancel(ctx)
	defer interrupt()
	interrupted := make(chan time.Time, 1)
	go func() {
		waiting := 0
		for deadline := time.Now().Add(90 * time.Second); waiting < 2 && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
			if err := e.DB().QueryRowContext(ctx, lockWaits).Scan(&waiting); err != nil {
				t.Errorf("%s: %v", lockWaits, err)
				break
			}
		}
		if waiting < 2 {
			t.Errorf("%d of 2 users wait for a lock; the test needs both", waiting)
		}
		interrupted <- time.Now()
		interrupt()
	}()
	res, err := Run(runCtx, e, RunConfig{Plan: vuser.Plan{Users: []int{2}, Duration: 3 * time.Minute, Interval: time.Second, OutDir: t.TempDir()}})
	took := time.Since(<-interrupted)
	t.Logf("interrupted in a lock wait: run ended %v later: %v", took.Round(time.Millisecond), err)
	if took > time.Minute { // the locks would go only at 2 minutes: half of that is "at once" on any host
		t.Errorf("the run took %v to end after the interrupt; the session's Cancel should stop a lock wait at once", took)
	}
	if res == nil {
		t.Fatalf("no result: %v", err)
	}
	if !errors.Is(err, context.Canceled) || res.Status != "interrupted" || strings.Contains(res.Error, "connection") {
		t.Errorf("err %v, status %q, error %q: want the run interrupted, not failed", err, res.Status, res.Error)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatalf("the locks were let go before the run ended: %v", err)
	}
	checkAll(t, e)
}
