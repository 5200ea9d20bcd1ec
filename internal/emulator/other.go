//go:build !linux

package emulator

import (
	"context"
	"io"
)

// The emulator needs Linux's FUSE; elsewhere every entry point says so. Trace replay
// (ReplayFile) works everywhere.

var errNotLinux = fuseUnavailable("the emulator needs Linux")

// Emulator is a running server process with its mounts (Linux only).
type Emulator struct{}

// Start fails: no FUSE emulation off Linux.
func Start(ctx context.Context, devs []Device, opts Options) (*Emulator, error) {
	return nil, errNotLinux
}

func (e *Emulator) PID() int                                    { return 0 }
func (e *Emulator) Devices() []DeviceStats                      { return nil }
func (e *Emulator) Stats() ([]DeviceStats, error)               { return nil, errNotLinux }
func (e *Emulator) Stop() ([]DeviceStats, error)                { return nil, nil }
func CheckFUSE() error                                          { return errNotLinux }
func CleanStale() ([]string, error)                             { return nil, nil }
func Serve(context.Context, string, io.Reader, io.Writer) error { return errNotLinux }

// Calibrate fails: no FUSE emulation off Linux.
func Calibrate(ctx context.Context, spec string, opts CalibrateOptions) (*Calibration, error) {
	return nil, errNotLinux
}
