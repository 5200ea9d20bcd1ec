package twin

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestHostLock: an exclusive hold keeps out another until it is released; a shared
// hold lets another shared one in; Ctrl-C ends a wait.
func TestHostLock(t *testing.T) {
	l := &hostLock{path: filepath.Join(t.TempDir(), "cpu.lock")}
	ctx := context.Background()
	release, err := l.hold(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan time.Time, 1)
	go func() {
		r, err := l.hold(ctx, true)
		if err == nil {
			got <- time.Now()
			r()
		}
	}()
	time.Sleep(50 * time.Millisecond)
	select {
	case <-got:
		t.Fatal("a second exclusive hold got the lock while the first held it")
	default:
	}
	freed := time.Now()
	release()
	select {
	case at := <-got:
		if at.Before(freed) {
			t.Error("the second hold came before the release")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second hold never came after the release")
	}

	a, err := l.hold(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.hold(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := l.hold(cctx, true); !errors.Is(err, context.Canceled) {
		t.Errorf("an exclusive wait on shared holders, interrupted: %v", err)
	}
	a()
	b()
	var none *hostLock
	if r, err := none.hold(ctx, true); err != nil {
		t.Error(err)
	} else {
		r()
	}
}
