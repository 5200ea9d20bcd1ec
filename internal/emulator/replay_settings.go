package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"tierbench/internal/device"
	"tierbench/internal/params"
)

// ReplaySettings are the parameters of `tierbench device replay`. Run checks them,
// each failing with one line that names the flag, before the trace is read, then
// replays it (ReplayFile) and prints the result.
type ReplaySettings struct {
	set     *params.Set
	trace   string
	profile string
	paths   []string
	asJSON  bool
	partial bool
}

// NewReplaySettings returns device replay's parameters at their defaults.
func NewReplaySettings() *ReplaySettings {
	r := &ReplaySettings{set: params.NewSet("device replay")}
	s := r.set
	s.String(&r.trace, "trace", "", params.String, "trace file recorded by the emulator (--record-trace)").Require()
	s.String(&r.profile, "profile", "", params.String, "device profile or spec to replay through").Require()
	s.List(&r.paths, "profiles", device.ProfilesHelp)
	s.Bool(&r.asJSON, "json", false, "print JSON")
	s.Bool(&r.partial, "partial", false, "replay a trace that ends early up to where it ends, and say so, instead of refusing it")
	return r
}

// Params are the parameters, for a command line.
func (r *ReplaySettings) Params() *params.Set { return r.set }

// Run checks the parameters, replays the trace and prints the result to stdout.
func (r *ReplaySettings) Run(ctx context.Context, stdout io.Writer) error {
	paths, err := device.ProfilePaths(r.paths)
	if err != nil {
		return err
	}
	if err := checkFile("--trace", r.trace); err != nil {
		return err
	}
	if err := checkProfile(r.profile, paths); err != nil {
		return err
	}
	res, err := ReplayFile(ctx, r.trace, r.profile, ReplayOptions{Partial: r.partial}, paths...)
	if errors.Is(err, ErrTraceTruncated) {
		return fmt.Errorf("%w; give --partial to replay the requests before that point", err)
	}
	if err != nil {
		return err
	}
	if r.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return res.WriteText(stdout, r.trace)
}

// WriteText prints the replay of trace for people: the requests, the I/O time,
// busy time, latencies and energy, and whether the trace was complete and checked.
func (res ReplayResult) WriteText(out io.Writer, trace string) error {
	fmt.Fprintf(out, "trace %s through %s\n", trace, res.Spec)
	if res.Incomplete != "" {
		fmt.Fprintf(out, "INCOMPLETE: %s; the figures below cover the %d requests before that point\n", res.Incomplete, res.Requests)
	}
	if res.TraceFormat == 1 {
		fmt.Fprintln(out, "note      format 1 trace (an older tierbench): it has no checksums or end marker, so a file cut short or altered cannot be detected")
	}
	fmt.Fprintf(out, "requests  %d (reads %d, writes %d, flushes %d; %d / %d bytes read / written)\n",
		res.Requests, res.Model.Reads, res.Model.Writes, res.Model.Flushes, res.Model.ReadBytes, res.Model.WriteBytes)
	_, err := fmt.Fprintf(out, "I/O time  %v (sum of latencies)\nbusy      %v of %v\nlatency   mean %v  p50 %v  p99 %v  max %v\nenergy    %.1f J\n",
		res.IOTime, res.Busy, res.Span, res.Latency.Mean(), res.Latency.Quantile(0.5), res.Latency.Quantile(0.99), res.Latency.Max(), res.EnergyJ)
	return err
}
