//go:build linux

package placement

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"tierbench/internal/emulator"
)

// TestMain doubles as the emulator server: Start re-executes the test binary with
// serveEnv set, as tierbench re-executes itself as `device serve`.
func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		var config string
		for i, a := range os.Args {
			if a == "--config" && i+1 < len(os.Args) {
				config = os.Args[i+1]
			}
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := emulator.Serve(ctx, config, os.Stdin, os.Stdout)
		stop()
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const serveEnv = "TIERBENCH_PLACEMENT_TEST_SERVE"

// emulatorOptions start the server from the test binary. The tests check what the
// devices count, not their timing, so a device the loaded host finds too fast is
// mounted all the same.
func emulatorOptions(t *testing.T) emulator.Options {
	return emulator.Options{
		Command:      []string{os.Args[0]},
		Env:          []string{serveEnv + "=1"},
		StateDir:     t.TempDir(),
		AllowTooFast: true,
	}
}

// needFUSE skips a test where FUSE is missing, except in CI, where it fails.
func needFUSE(t *testing.T) {
	t.Helper()
	if err := emulator.CheckFUSE(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %v", err)
		}
		t.Skip(err)
	}
}
