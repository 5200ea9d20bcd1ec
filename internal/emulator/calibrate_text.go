package emulator

import (
	"fmt"
	"io"
	"text/tabwriter"

	"tierbench/internal/device"
)

// ProbesRun counts the probes in c (a queue-depth-1 probe gives two rows).
func (c *Calibration) ProbesRun() int {
	seen := map[string]bool{}
	for _, p := range c.Probes {
		seen[p.Probe] = true
	}
	return len(seen)
}

// WriteText prints the calibration for people: the path and its floor, the
// compensation (FUSE), whether the device is too fast for this host, a row per probe
// with the model, the host's best, the measured figure and both errors, and what the
// columns mean.
func (c *Calibration) WriteText(out io.Writer) error {
	fmt.Fprintf(out, "device %s: model random 8 KiB read %s\n", c.Profile, device.LatencyText(c.ModelRead8KUs))
	preload := c.Path == PathPreload
	if preload {
		fmt.Fprintf(out, "path: preload (the shared-memory ring of the LD_PRELOAD shim and the SQLite VFS, called from this process; runs take it by default, --emulator fuse calibrates the FUSE mount)\n")
		fmt.Fprintf(out, "floor on this host: %.1f us per request (4 KiB read, queue depth 1, no model); at most %.0f requests/s at queue depth 32 from one thread (the probes' way, as fio's iodepth), %.0f from 32 threads each waiting for its own (a database's way)\n",
			c.FloorUs, c.CeilingIOPS, c.ThreadCeilingIOPS)
		fmt.Fprintf(out, "no compensation: each request is stamped when it is made, so the path's own time is inside the model's\n")
	} else {
		fmt.Fprintf(out, "path: fuse (a FUSE mount; runs take the preload path by default where it can enter the engine)\n")
		fmt.Fprintf(out, "mount floor on this host: %.1f us per request (4 KiB read, queue depth 1, no model); at most %.0f requests/s at queue depth 32\n",
			c.FloorUs, c.CeilingIOPS)
		fmt.Fprintf(out, "compensation: %.1f us (+%.0f us per MiB read, %.0f us per MiB written) taken off each completion for the mount's own overhead\n",
			c.CompensationUs, c.CompensationPerMiBUs[0], c.CompensationPerMiBUs[1])
	}
	if c.TooFast {
		fmt.Fprintf(out, "TOO FAST FOR THIS HOST: %s answers a random 8 KiB read in %s, within twice the mount's own floor of %.1f us; real-time emulation would report this host's overhead, not the device, and runs refuse it. Use trace replay: record a run on a slower device (Device.Trace) and run 'tierbench device replay --trace FILE --profile %s'.\n",
			c.Profile, device.LatencyText(c.ModelRead8KUs), c.FloorUs, c.Profile)
	}
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "PROBE\tMETRIC\tMODEL\tHOST BEST\tMEASURED\tERROR\tVS BEST\tROUNDS\tREQUESTS\t"
	if preload {
		head += "LATE P50/P90/P99 us\t"
	}
	fmt.Fprintln(tw, head)
	for _, p := range c.Probes {
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
