// Command tierbench runs benchmarks (TPC-H, TPC-C, transaction mixes declared in YAML,
// a Postmark-compatible file workload) on real engines over real or emulated storage.
// This package holds only the command line; the work lives under internal/, and
// docs/internals.md says where.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"tierbench/internal/workload"
)

func main() {
	// The first Ctrl-C cancels the context so the run stops, keeps what it measured and
	// cleans up the servers it started; a second one kills the process as usual.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	err := newRootCommand().ExecuteContext(ctx)
	stop()
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "tierbench:", err)
	var ee *workload.ExitError
	if errors.As(err, &ee) {
		os.Exit(ee.Code)
	}
	if errors.Is(err, context.Canceled) {
		os.Exit(130)
	}
	os.Exit(1)
}
