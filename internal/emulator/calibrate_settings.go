package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"tierbench/internal/device"
	"tierbench/internal/params"
)

// Calibration's budget: below 10 ms a probe on a disk has no time for a request; above
// 10 minutes the run would take over an hour for nothing (every probe stops after its
// request count anyway).
const (
	minCalibrateBudget = 10 * time.Millisecond
	maxCalibrateBudget = 10 * time.Minute
)

// CalibrateSettings are the parameters of `tierbench device calibrate`. Run checks
// them, each failing with one line that names the flag and says what would be valid,
// before anything is mounted, then calibrates (Calibrate) and prints the table or
// JSON.
type CalibrateSettings struct {
	set     *params.Set
	profile string
	paths   []string
	dir     string
	budget  time.Duration
	asJSON  bool
	path    string
}

// NewCalibrateSettings returns device calibrate's parameters at their defaults.
func NewCalibrateSettings() *CalibrateSettings {
	c := &CalibrateSettings{set: params.NewSet("device calibrate")}
	s := c.set
	s.String(&c.profile, "profile", "", params.String, "device profile or spec to calibrate, such as hdd-7200 or 'pagecache(sata-ssd,size=1GiB)'").Require()
	s.List(&c.paths, "profiles", "profile file or directory of *.yaml files (repeatable; default: the user directory if it exists)")
	s.String(&c.dir, "dir", "", params.String, "directory for the backing files (default: a temporary directory on /dev/shm)")
	s.Duration(&c.budget, "budget", 1200*time.Millisecond, "longest run of each probe")
	s.Bool(&c.asJSON, "json", false, "print JSON instead of a table")
	// auto, as for runs: a calibration measures the path a run takes by default.
	params.Parsed(s, &c.path, "emulator", PathAuto, params.Enum, ParsePath, "path of the probes to the device: preload (the ring of the LD_PRELOAD shim and SQLite's VFS), fuse (a FUSE mount), or auto (preload: the path runs take by default)").
		Choices = []string{PathFUSE, PathPreload, PathAuto}
	return c
}

// Params are the parameters, for a command line.
func (c *CalibrateSettings) Params() *params.Set { return c.set }

// Run checks the parameters, calibrates, and prints the result to stdout (progress
// to stderr, for the table). Interrupted (ctx), it prints the probes that ran and
// says how many did.
func (c *CalibrateSettings) Run(ctx context.Context, stdout, stderr io.Writer) error {
	paths, err := device.ProfilePaths(c.paths)
	if err != nil {
		return err
	}
	if c.budget < minCalibrateBudget || c.budget > maxCalibrateBudget {
		return fmt.Errorf("--budget %v: give the longest run of each probe, from %v to %v (default 1.2s)", c.budget, minCalibrateBudget, maxCalibrateBudget)
	}
	if err := checkDir("--dir", c.dir, "a temporary directory on /dev/shm"); err != nil {
		return err
	}
	if err := checkProfile(c.profile, paths); err != nil {
		return err
	}
	opts := CalibrateOptions{Dir: c.dir, Budget: c.budget}
	opts.Profiles, opts.Path = paths, c.path
	if opts.Path == PathAuto {
		opts.Path = PathPreload
	}
	if !c.asJSON {
		opts.Progress = stderr
	}
	cal, err := Calibrate(ctx, c.profile, opts)
	if err != nil && ctx.Err() != nil {
		// Ctrl-C: the probes that finished are worth their table
		done := 0
		if cal != nil && len(cal.Probes) > 0 {
			done = cal.ProbesRun()
			if !c.asJSON {
				cal.WriteText(stdout)
			}
		}
		return fmt.Errorf("interrupted: %d of %d probes ran; calibrate again for all of them: %w", done, ProbeCount, err)
	}
	if err != nil {
		return err
	}
	if c.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(cal)
	}
	return cal.WriteText(stdout)
}

// checkProfile builds a model of spec (a profile name or a device spec) with the
// users' profiles in paths, so a bad --profile fails before anything is mounted or
// read.
func checkProfile(spec string, paths []string) error {
	if strings.TrimSpace(spec) == "" {
		return errors.New("--profile is empty: give a profile such as hdd-7200 or a spec such as 'pagecache(sata-ssd,size=1GiB)' ('tierbench device list' shows them)")
	}
	reg, err := device.Load(paths...)
	if err != nil {
		return fmt.Errorf("--profiles: %w", err)
	}
	if spec == NullSpec {
		return nil
	}
	if _, err := reg.Build(spec); err != nil {
		return fmt.Errorf("--profile %s: %w", spec, err)
	}
	return nil
}

// checkFile checks that flag names a regular file that exists.
func checkFile(flag, path string) error {
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

// checkDir checks that flag, if given, names an existing directory; unset says what
// is used without it.
func checkDir(flag, dir, unset string) error {
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
