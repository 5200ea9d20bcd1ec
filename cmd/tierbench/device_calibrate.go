package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
)

func newDeviceCalibrateCommand() *cobra.Command {
	var (
		profile string
		paths   []string
		dir     string
		budget  time.Duration
		asJSON  bool
		path    string
	)
	cmd := &cobra.Command{
		Use:   "calibrate --profile P",
		Short: "Measure how closely an emulated device follows its model on this host",
		Long: `Run fio-like probes through an emulated device whose every request takes the time
the device model says: random 8 KiB reads and writes at queue depth 1 and 32,
sequential 1 MiB reads and writes, and 8 KiB write + fsync commits. Each probe runs on a
fresh device and is compared with the same requests run through the model in virtual
time; the error is what real-time emulation on this host adds or loses.

--emulator says which path the probes take: fuse (a FUSE mount, as any program sees
it) or preload (the shared-memory ring that PostgreSQL's and MariaDB's LD_PRELOAD shim
and SQLite's VFS use, called from this process); auto is preload.

It also measures the path's own latency floor (a 4 KiB read with no model) and the
most requests per second it passes. A device faster than the floor cannot be emulated
in real time here: record a trace on a slower device and use 'tierbench device replay'.`,
		Example: `  tierbench device calibrate --profile hdd-7200
  tierbench device calibrate --profile nvme --emulator preload
  tierbench device calibrate --profile sata-ssd --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			paths, err := device.ProfilePaths(paths)
			if err != nil {
				return err
			}
			if err := checkCalibrateBudget(budget); err != nil {
				return err
			}
			if err := checkDirFlag("--dir", dir, "a temporary directory on /dev/shm"); err != nil {
				return err
			}
			if err := checkProfileFlag(profile, paths); err != nil {
				return err
			}
			p, err := emulator.ParsePath(path)
			if err != nil {
				return err
			}
			if p == emulator.PathAuto {
				p = emulator.PathPreload
			}
			opts := emulator.CalibrateOptions{Dir: dir, Budget: budget}
			opts.Profiles = paths
			opts.Path = p
			if !asJSON {
				opts.Progress = cmd.ErrOrStderr()
			}
			cal, err := emulator.Calibrate(cmd.Context(), profile, opts)
			if err != nil && cmd.Context().Err() != nil {
				// Ctrl-C: the probes that finished are worth their table
				done := 0
				if cal != nil && len(cal.Probes) > 0 {
					done = probesDone(cal)
					if !asJSON {
						printCalibration(cmd.OutOrStdout(), cal)
					}
				}
				return fmt.Errorf("interrupted: %d of %d probes ran; calibrate again for all of them: %w", done, emulator.ProbeCount, err)
			}
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(cal)
			}
			return printCalibration(cmd.OutOrStdout(), cal)
		},
	}
	f := cmd.Flags()
	f.StringVar(&profile, "profile", "", "device profile or spec to calibrate, such as hdd-7200 or 'pagecache(sata-ssd,size=1GiB)'")
	f.StringSliceVar(&paths, "profiles", nil, "profile file or directory of *.yaml files (repeatable; default: the user directory if it exists)")
	f.StringVar(&dir, "dir", "", "directory for the backing files (default: a temporary directory on /dev/shm)")
	f.DurationVar(&budget, "budget", 1200*time.Millisecond, "longest run of each probe")
	f.BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	f.StringVar(&path, "emulator", emulator.PathFUSE, "path of the probes to the device: fuse, preload, or auto (preload)")
	cmd.MarkFlagRequired("profile")
	return cmd
}

// probesDone counts the probes of cal (a queue-depth-1 probe gives two rows).
func probesDone(cal *emulator.Calibration) int {
	seen := map[string]bool{}
	for _, p := range cal.Probes {
		seen[p.Probe] = true
	}
	return len(seen)
}

func printCalibration(out io.Writer, cal *emulator.Calibration) error {
	fmt.Fprintf(out, "device %s: model random 8 KiB read %s\n", cal.Profile, formatLatency(cal.ModelRead8KUs))
	preload := cal.Path == emulator.PathPreload
	if preload {
		fmt.Fprintf(out, "path: preload (the shared-memory ring of the LD_PRELOAD shim and the SQLite VFS, called from this process)\n")
		fmt.Fprintf(out, "floor on this host: %.1f us per request (4 KiB read, queue depth 1, no model); at most %.0f requests/s at queue depth 32 from one thread (the probes' way, as fio's iodepth), %.0f from 32 threads each waiting for its own (a database's way)\n",
			cal.FloorUs, cal.CeilingIOPS, cal.ThreadCeilingIOPS)
		fmt.Fprintf(out, "no compensation: each request is stamped when it is made, so the path's own time is inside the model's\n")
	} else {
		fmt.Fprintf(out, "path: fuse (a FUSE mount)\n")
		fmt.Fprintf(out, "mount floor on this host: %.1f us per request (4 KiB read, queue depth 1, no model); at most %.0f requests/s at queue depth 32\n",
			cal.FloorUs, cal.CeilingIOPS)
		fmt.Fprintf(out, "compensation: %.1f us (+%.0f us per MiB read, %.0f us per MiB written) taken off each completion for the mount's own overhead\n",
			cal.CompensationUs, cal.CompensationPerMiBUs[0], cal.CompensationPerMiBUs[1])
	}
	if cal.TooFast {
		fmt.Fprintf(out, "TOO FAST FOR THIS HOST: %s answers a random 8 KiB read in %s, within twice the mount's own floor of %.1f us; real-time emulation would report this host's overhead, not the device, and runs refuse it. Use trace replay: record a run on a slower device (Device.Trace) and run 'tierbench device replay --trace FILE --profile %s'.\n",
			cal.Profile, formatLatency(cal.ModelRead8KUs), cal.FloorUs, cal.Profile)
	}
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "PROBE\tMETRIC\tMODEL\tHOST BEST\tMEASURED\tERROR\tVS BEST\tROUNDS\tREQUESTS\t"
	if preload {
		head += "LATE P50/P90/P99 us\t"
	}
	fmt.Fprintln(tw, head)
	for _, p := range cal.Probes {
		note := ""
		if p.HostLimited {
			note = " (host-limited)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%.1f\t%+.1f%%%s\t%+.1f%%\t%d\t%d\t", p.Probe, p.Metric, p.Model, p.HostBest, p.Measured, p.ErrorPct, note, p.ErrorVsHostBestPct, p.Rounds, p.Requests)
		if preload {
			fmt.Fprintf(tw, "%.1f/%.1f/%.1f\t", p.LateP50Us, p.LateP90Us, p.LateP99Us)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprint(out, `
HOST BEST: the best this path can measure on this host: the model's figure with each
  request taking at least what the path took for it on a device that takes no time
  (queue depth 1), or at most the requests per second the path passed there (queue
  depth 32). Where that alone is more than 5% from the model the probe is host-limited:
  its error is the host's, not the emulation's.
VS BEST: the measured figure against the host's best: what the emulation's timing adds.
ROUNDS: runs of the probe, each on a fresh device, while they fit the budget; the
  figures are the round with the median error.
`)
	if preload {
		fmt.Fprintln(out, "LATE: how long after the model's completion time requests returned to the caller (the emulation's own timing error).")
	}
	return nil
}
