package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
)

// Checks of the device commands' flags, each failing with one line that names the flag
// and says what would be valid, before any work starts.

// Calibration's budget: below 10 ms a probe on a disk has no time for a request; above
// 10 minutes the run would take over an hour for nothing (every probe stops after its
// request count anyway).
const (
	minCalibrateBudget = 10 * time.Millisecond
	maxCalibrateBudget = 10 * time.Minute
)

func checkCalibrateBudget(b time.Duration) error {
	if b < minCalibrateBudget || b > maxCalibrateBudget {
		return fmt.Errorf("--budget %v: give the longest run of each probe, from %v to %v (default 1.2s)", b, minCalibrateBudget, maxCalibrateBudget)
	}
	return nil
}

// checkProfileFlag builds a model of spec (a profile name or a device spec) with the
// users' profiles in paths, so a bad --profile fails before anything is mounted or read.
func checkProfileFlag(spec string, paths []string) error {
	if strings.TrimSpace(spec) == "" {
		return errors.New("--profile is empty: give a profile such as hdd-7200 or a spec such as 'pagecache(sata-ssd,size=1GiB)' ('tierbench device list' shows them)")
	}
	reg, err := device.Load(paths...)
	if err != nil {
		return fmt.Errorf("--profiles: %w", err)
	}
	if spec == emulator.NullSpec {
		return nil
	}
	if _, err := reg.Build(spec); err != nil {
		return fmt.Errorf("--profile %s: %w", spec, err)
	}
	return nil
}

// checkInputFile checks that flag names a regular file that exists.
func checkInputFile(flag, path string) error {
	if path == "" {
		return fmt.Errorf("%s is empty: give a file", flag)
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: no such file", flag, path)
	case err != nil:
		return fmt.Errorf("%s: %w", flag, err)
	case st.IsDir():
		return fmt.Errorf("%s %s is a directory: give a file", flag, path)
	}
	return nil
}

// checkDirFlag checks that flag, if given, names an existing directory.
func checkDirFlag(flag, dir, unset string) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: no such directory: create it, or leave %s out to use %s", flag, dir, flag, unset)
	case err != nil:
		return fmt.Errorf("%s: %w", flag, err)
	case !st.IsDir():
		return fmt.Errorf("%s %s is not a directory", flag, dir)
	}
	return nil
}
