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

func main() { os.Exit(run(os.Args[1:])) }

// run runs the command line args and returns the exit status: a workload's or a
// study's own (*workload.ExitError: a failed validation, a study's status for a
// scheduler), 130 when interrupted, 1 for any other error.
func run(args []string) int {
	// The first Ctrl-C or SIGTERM cancels the context so the run stops, keeps what it
	// measured and cleans up the servers it started; a second Ctrl-C kills the
	// process as usual. A second SIGTERM is ignored: a scheduler (Slurm's scancel)
	// signals every process of a job, and a study passes the signal on to the
	// command of its run as well, which must still get to stop its server and
	// unmount its devices. SIGKILL remains.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		signal.Ignore(syscall.SIGTERM)
		stop()
	}()
	root := newRootCommand()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	stop()
	if err == nil {
		return 0
	}
	fmt.Fprintln(os.Stderr, "tierbench:", err)
	var ee *workload.ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	if errors.Is(err, context.Canceled) {
		return 130
	}
	return 1
}
