// Package emutest lets other packages' tests mount emulated devices: the test binary
// doubles as the emulator server, as tierbench re-executes itself as `device serve`.
// Package emulator's own tests keep their copy of this, since they cannot import it.
//
//	func TestMain(m *testing.M) { emutest.Main(m) }
//	...
//	emutest.NeedFUSE(t)
//	em, err := emulator.Start(ctx, devs, emutest.Options(t))
package emutest

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"tierbench/internal/emulator"
)

const serveEnv = "TIERBENCH_EMULATOR_TEST_SERVE"

// Main serves emulated devices when emulator.Start re-executed the test binary (with
// Options), and runs the tests otherwise.
func Main(m *testing.M) {
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

// Options start the emulator server from the test binary (whose TestMain calls Main).
func Options(t testing.TB) emulator.Options {
	return emulator.Options{Command: []string{os.Args[0]}, Env: []string{serveEnv + "=1"}, StateDir: t.TempDir()}
}

// NeedFUSE skips a test where FUSE is missing, except in CI, where it fails: CI must
// provide /dev/fuse.
func NeedFUSE(t testing.TB) {
	t.Helper()
	if err := emulator.CheckFUSE(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %v", err)
		}
		t.Skip(err)
	}
}
