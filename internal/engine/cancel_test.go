package engine

import (
	"context"
	"testing"
	"time"
)

// plainSession is a Session that cannot cancel (as SQLite's); its methods are never
// called here.
type plainSession struct{ Session }

type ctxKey struct{}

// cancelSession is a Canceller that reports each Cancel on calls.
type cancelSession struct {
	Session
	calls chan struct{}
}

func newCancelSession() *cancelSession { return &cancelSession{calls: make(chan struct{}, 10)} }

func (s *cancelSession) Cancel() { s.calls <- struct{}{} }

// cancelled checks that Cancel has been called want times since the last check: it
// waits for them (up to 10 s, so a loaded host's late goroutine is not a failure; a
// call that comes returns at once), then a moment for any further call (AfterFunc runs
// Cancel on a goroutine of its own).
func (s *cancelSession) cancelled(t *testing.T, want int) {
	t.Helper()
	got := 0
	deadline := time.After(10 * time.Second)
	for got < want {
		select {
		case <-s.calls:
			got++
		case <-deadline:
			t.Fatalf("Cancel called %d times, want %d", got, want)
		}
	}
	select {
	case <-s.calls:
		t.Errorf("Cancel called more than %d times", want)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestStmtContextArmsCancel(t *testing.T) {
	s := newCancelSession()
	sc := NewStmtContext(s)
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
	defer cancel()
	q := sc.For(ctx)
	if q == ctx || q.Done() != nil {
		t.Fatalf("For on a Canceller returned %v, want a context that never ends", q)
	}
	if q.Value(ctxKey{}) != "v" {
		t.Error("the statement context lost the run context's values")
	}
	if again := sc.For(ctx); again != q {
		t.Error("a second For on the same context armed it again")
	}
	s.cancelled(t, 0)
	cancel()
	s.cancelled(t, 1)
	if q.Err() != nil {
		t.Errorf("the statement context ended with the run's: %v", q.Err())
	}
	if after := sc.For(ctx); after != ctx {
		t.Error("For on an ended context should return it, so statements fail at once")
	}
}

func TestStmtContextRearm(t *testing.T) {
	s := newCancelSession()
	sc := NewStmtContext(s)
	first, cancelFirst := context.WithCancel(context.Background())
	defer cancelFirst()
	second, cancelSecond := context.WithCancel(context.Background())
	defer cancelSecond()
	sc.For(first)
	if q := sc.For(second); q == second || q.Done() != nil {
		t.Fatalf("For on a new context returned %v, want a context that never ends", q)
	}
	cancelFirst()
	s.cancelled(t, 0)
	cancelSecond()
	s.cancelled(t, 1)
}

func TestStmtContextStop(t *testing.T) {
	s := newCancelSession()
	sc := NewStmtContext(s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sc.For(ctx)
	sc.Stop()
	cancel()
	s.cancelled(t, 0)
	sc.Stop() // twice is harmless
}

// TestStmtContextPassesThrough: no arming when the session cannot cancel or the
// context cannot end or has ended; For returns the context itself.
func TestStmtContextPassesThrough(t *testing.T) {
	live, cancelLive := context.WithCancel(context.Background())
	defer cancelLive()
	ended, cancelEnded := context.WithCancel(context.Background())
	cancelEnded()
	for _, tc := range []struct {
		name      string
		canceller bool
		ctx       context.Context
	}{
		{"not a Canceller", false, live},
		{"context that cannot end", true, context.Background()},
		{"context that cannot end, values", true, context.WithValue(context.Background(), ctxKey{}, 1)},
		{"context already ended", true, ended},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s Session = plainSession{}
			cs := newCancelSession()
			if tc.canceller {
				s = cs
			}
			sc := NewStmtContext(s)
			if got := sc.For(tc.ctx); got != tc.ctx {
				t.Errorf("For returned %v, want the context itself", got)
			}
			cs.cancelled(t, 0)
		})
	}
	var zero StmtContext
	if got := zero.For(live); got != live {
		t.Errorf("the zero StmtContext returned %v, want the context itself", got)
	}
	zero.Stop()
}
