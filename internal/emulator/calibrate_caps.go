package emulator

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"tierbench/internal/device"
)

// capTolerance is how far a measured rate may be from a provisioned cap: the caps of a
// cloud volume hold within 5% (docs/cloud.md, "Calibration").
const capTolerance = 0.05

// CapCheck is one probe's rate against the cap the device's provisioned limits set for
// its requests.
type CapCheck struct {
	Probe  string  `json:"probe"`
	Metric string  `json:"metric"`
	Cap    float64 `json:"cap"`
	// Model is the model's own figure in virtual time; Binding says the cap holds the
	// model's figure (within 5%: the queue is deep enough to reach it). Only a binding
	// cap is checked.
	Model    float64 `json:"model"`
	Binding  bool    `json:"binding"`
	Measured float64 `json:"measured"`
	ErrorPct float64 `json:"error_pct"`
	// Holds: the measured rate is within 5% of the cap.
	Holds bool `json:"holds"`
	// Why says why a cap is not checked (the queue cannot reach it).
	Why string `json:"why,omitempty"`
}

// probeShape is what a probe asks of a device: its request size and whether its
// requests are sequential.
type probeShape struct {
	size       int64
	sequential bool
}

// capChecks checks each throughput probe (requests or megabytes a second) against the
// rate the caps allow its requests: at the burst rate where the volume has one, since
// its credit bucket starts full and a probe does not empty it.
func capChecks(caps device.Caps, results []ProbeResult, shapes map[string]probeShape) []CapCheck {
	var out []CapCheck
	for _, r := range results {
		sh, ok := shapes[r.Probe]
		if !ok || (r.Metric != "iops" && r.Metric != "mb_per_s") {
			continue
		}
		rate := caps.RequestRate(sh.size, sh.sequential, true)
		if math.IsInf(rate, 1) {
			continue
		}
		c := CapCheck{Probe: r.Probe, Metric: r.Metric, Cap: rate, Model: r.Model, Measured: r.Measured}
		if r.Metric == "mb_per_s" {
			c.Cap = rate * float64(sh.size) / 1e6
		}
		c.ErrorPct = (c.Measured - c.Cap) / c.Cap * 100
		c.Binding = c.Model >= c.Cap*(1-capTolerance)
		if !c.Binding {
			c.Why = fmt.Sprintf("the model reaches %.4g at this queue depth, below the cap: the latency, not the cap, bounds it", c.Model)
		} else {
			c.Holds = math.Abs(c.ErrorPct) <= capTolerance*100
		}
		out = append(out, c)
	}
	return out
}

// writeCapChecks prints the caps' checks under the probes' table.
func (c *Calibration) writeCapChecks(out io.Writer) error {
	if len(c.CapChecks) == 0 {
		return nil
	}
	fmt.Fprintf(out, "\ncaps: each throughput probe against the rate the provisioned caps allow its requests (holds within %.0f%%)\n", capTolerance*100)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "PROBE\tMETRIC\tCAP\tMODEL\tMEASURED\tVS CAP\tCAP HOLDS\t")
	for _, k := range c.CapChecks {
		holds := "yes"
		switch {
		case !k.Binding:
			holds = "not reached"
		case !k.Holds:
			holds = "NO"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%.1f\t%+.1f%%\t%s\t\n", k.Probe, k.Metric, k.Cap, k.Model, k.Measured, k.ErrorPct, holds)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, k := range c.CapChecks {
		if k.Why != "" {
			fmt.Fprintf(out, "  %s: %s\n", k.Probe, k.Why)
		}
	}
	return nil
}
