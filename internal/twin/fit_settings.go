package twin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"tierbench/internal/device"
	"tierbench/internal/metrics"
	"tierbench/internal/params"
)

// The fit's settings' bounds: a round of each probe needs time for a few hundred
// requests on a disk (100 ms), and 20 rounds of 1 minute would be hours.
const (
	minBudget = 100 * time.Millisecond
	maxBudget = time.Minute
	maxRounds = 20
)

// FitSettings are the parameters of `tierbench device fit DIR`. Run checks them, each
// failing with one line that names the flag, before anything is written to DIR.
type FitSettings struct {
	set    *params.Set
	out    string
	name   string
	size   int64
	rounds int
	budget time.Duration
	asJSON bool
}

// NewFitSettings returns device fit's parameters at their defaults.
func NewFitSettings() *FitSettings {
	f := &FitSettings{set: params.NewSet("device fit")}
	s := f.set
	s.String(&f.out, "out", "", params.String, "profile file to write (default: NAME.yaml in "+device.DefaultUserDir()+", where every command finds it)")
	s.String(&f.name, "name", "", params.String, "the profile's name (default: twin-DEVICE, e.g. twin-vda)")
	s.Size(&f.size, "size", "4GiB", "working set of the probes: larger than any cache in the device; DIR needs this much free, plus 128 MiB")
	s.Int(&f.rounds, "rounds", 3, "runs of each probe, round after round, for the spread")
	s.Duration(&f.budget, "budget", 3*time.Second, "longest run of each probe in a round")
	s.Bool(&f.asJSON, "json", false, "print the fit as JSON instead of a table")
	return f
}

// Params are the parameters, for a command line.
func (f *FitSettings) Params() *params.Set { return f.set }

// Run checks the parameters, fits the device under dir and writes the profile.
// Interrupted (ctx), it removes the probe files and writes nothing.
func (f *FitSettings) Run(ctx context.Context, dir string, stdout, stderr io.Writer) error {
	if f.size < MinSize || f.size > 1<<40 {
		return fmt.Errorf("--size %s: give a working set from %s to 1 TiB, larger than any cache in the device", bytesText(f.size), bytesText(MinSize))
	}
	if f.rounds < 1 || f.rounds > maxRounds {
		return fmt.Errorf("--rounds %d: give 1 to %d runs of each probe (3 or more for a spread)", f.rounds, maxRounds)
	}
	if f.budget < minBudget || f.budget > maxBudget {
		return fmt.Errorf("--budget %v: give the longest run of each probe, from %v to %v (default 3s)", f.budget, minBudget, maxBudget)
	}
	if f.name != "" && strings.ContainsAny(f.name, "(),= \t/") {
		return fmt.Errorf("--name %q: a profile name may not contain spaces, parentheses, commas, = or /", f.name)
	}
	where, err := Locate(dir)
	if err != nil {
		return err
	}
	name := f.name
	if name == "" {
		name = "twin-" + nameOf(where)
	}
	out := f.out
	if out == "" {
		out = filepath.Join(device.DefaultUserDir(), name+".yaml")
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return fmt.Errorf("--out: %w: give --out FILE", err)
		}
	}
	if err := checkOut(out); err != nil {
		return err
	}
	opts := FitOptions{Size: f.size, Rounds: f.rounds, Budget: f.budget, Name: name}
	if !f.asJSON {
		opts.Progress = stderr
	}
	res, err := Fit(ctx, dir, opts)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: the probe files are removed from %s and no profile was written: %w", dir, ctx.Err())
		}
		return err
	}
	if err := metrics.WriteFile(out, res.Profile); err != nil {
		return err
	}
	if f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			*FitResult
			File string `json:"file"`
		}{res, out})
	}
	return res.WriteText(stdout, out)
}

// checkOut checks, before anything is measured, that the profile can be written to
// path: its directory exists and takes a new file, and path is no directory.
func checkOut(path string) error {
	st, err := os.Stat(path)
	if err == nil && st.IsDir() {
		return fmt.Errorf("--out %s is a directory: give the profile file to write, e.g. %s", path, filepath.Join(path, "twin.yaml"))
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("--out %s: directory %s does not exist: create it or write elsewhere", path, dir)
	} else if err == nil && !st.IsDir() {
		return fmt.Errorf("--out %s: %s is not a directory", path, dir)
	}
	tmp, err := os.CreateTemp(dir, ".tierbench-out-*")
	if err != nil {
		return fmt.Errorf("--out %s: cannot write in %s (%v): give a writable place for the profile", path, dir, err)
	}
	tmp.Close()
	os.Remove(tmp.Name())
	return nil
}
