//go:build linux

package placement

import (
	"testing"

	"tierbench/internal/emulator"
	"tierbench/internal/emulator/emutest"
)

func TestMain(m *testing.M) { emutest.Main(m) }

// emulatorOptions start the server from the test binary. The tests check what the
// devices count, not their timing, so a device the loaded host finds too fast is
// mounted all the same.
func emulatorOptions(t *testing.T) emulator.Options {
	opts := emutest.Options(t)
	opts.AllowTooFast = true
	return opts
}

func needFUSE(t *testing.T) { emutest.NeedFUSE(t) }
