package oltp

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/engine/servertest"
	"tierbench/internal/result"
	"tierbench/internal/workload/vuser"
)

// TestManagedServers loads and runs the bundled mixes briefly on managed PostgreSQL
// and MariaDB/MySQL, and the blob mix of testdata (blobRoundTrip). CI=true turns a
// missing server into a failure.
func TestManagedServers(t *testing.T) {
	for _, srv := range servertest.Servers {
		t.Run(srv.Name, func(t *testing.T) {
			e := srv.Open(t, engine.Config{}, true)
			for _, name := range []string{"point-select", "policy", "ecommerce", "bbs"} {
				scale := 0.1
				if name != "point-select" && name != "policy" {
					scale = 0.02
				}
				loadAndRun(t, e, mustOpen(t, name), scale, 2, 2*time.Second)
			}
			blobRoundTrip(t, e)
			// Server sessions run every statement on their own prepared statements
			// (engine.Preparer: pgconn on PostgreSQL, the binary protocol beneath
			// go-sql-driver on MariaDB), not through the driver's.
			ctx := context.Background()
			wl, err := NewTransactions(ctx, e, mustOpen(t, "bbs"), TransactionsConfig{Seed: 1}) // a mix loaded
			if err != nil {
				t.Fatal(err)
			}
			w, err := wl.NewWorker(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			own, all := 0, 0
			for _, ps := range w.(*worker).fast {
				for _, p := range ps {
					all++
					if p != nil {
						own++
					}
				}
			}
			if own != all || all == 0 {
				t.Errorf("%d of %d statements on the session's own prepared statements, want all", own, all)
			}
			discardDropsTheSession(t, e, wl)
			interruptDuringLogins(t, e, wl)
		})
	}
}

// discardDropsTheSession: Close hands a worker's connection back to the pool, its
// statements deallocated; Discard (an interrupted or failed run) drops it, and the
// server frees the statements with the session, with no round trip for each.
func discardDropsTheSession(t *testing.T, e engine.Engine, wl *Transactions) {
	ctx := context.Background()
	db := e.DB()
	w, err := wl.NewWorker(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	before := db.Stats()
	if err := w.(vuser.Discarder).Discard(); err != nil && !errors.Is(err, sql.ErrConnDone) {
		t.Errorf("Discard: %v", err)
	}
	after := db.Stats()
	if after.OpenConnections != before.OpenConnections-1 || after.Idle != before.Idle {
		t.Errorf("Discard: %d open and %d idle connections, then %d and %d; want one fewer open, none back in the pool",
			before.OpenConnections, before.Idle, after.OpenConnections, after.Idle)
	}
	if w, err = wl.NewWorker(ctx, 2); err != nil {
		t.Fatal(err)
	}
	before = db.Stats()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if after = db.Stats(); after.Idle != before.Idle+1 {
		t.Errorf("Close: %d idle connections, then %d; want it back in the pool", before.Idle, after.Idle)
	}
}

// loginCounter is a workload that ends its context after a number of logins, as a
// Ctrl-C during them would.
type loginCounter struct {
	*Transactions
	n      atomic.Int64
	at     int64
	cancel context.CancelFunc
}

func (l *loginCounter) NewWorker(ctx context.Context, user int) (vuser.Worker, error) {
	w, err := l.Transactions.NewWorker(ctx, user)
	if l.n.Add(1) == l.at {
		l.cancel()
	}
	return w, err
}

// interruptDuringLogins: a run interrupted while its users log in (and prepare their
// statements) returns context.Canceled and leaves no session open. On MariaDB it hung:
// a prepare that the cancel interrupted waited for the connection it held itself.
func interruptDuringLogins(t *testing.T, e engine.Engine, wl *Transactions) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inUse := e.DB().Stats().InUse
	l := &loginCounter{Transactions: wl, at: 20, cancel: cancel}
	sum, err := vuser.Run(ctx, l, vuser.Config{Users: 60, Duration: time.Minute})
	if !errors.Is(err, context.Canceled) || sum == nil || sum.Status != result.StatusInterrupted {
		t.Fatalf("err %v, summary %+v; want an interrupted run", err, sum)
	}
	if st := e.DB().Stats(); st.InUse != inUse {
		t.Errorf("after the interrupt: %d connections in use, %d before", st.InUse, inUse)
	}
}
