package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
)

func newDeviceReplayCommand() *cobra.Command {
	var (
		trace   string
		profile string
		paths   []string
		asJSON  bool
		partial bool
	)
	cmd := &cobra.Command{
		Use:   "replay --trace FILE --profile P",
		Short: "Replay a recorded I/O trace through a device model offline",
		Long: `Replay an I/O trace recorded through an emulated device (every request with its
time, operation, offset, size and file) through a fresh model of any profile, and print
the I/O time that device would have spent: the sum of request latencies, its busy time
and counters. Requests are submitted at their recorded times (open loop), so this is
how devices too fast to emulate in real time on this host are compared.

Every record is checked (operation, flags, time order, offset and size within what a
device is asked), and so is each block's checksum and the end marker: a damaged trace
is refused with the record and byte at fault. A trace that ends early (a recording
stopped by a killed emulator, a copy cut short) is refused too, unless --partial.`,
		Example: `  tierbench device replay --trace run1-data.trace --profile nvme
  tierbench device replay --trace run1-data.trace --profile 'san(dram-ssd,link=8gfc)' --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			paths, err := device.ProfilePaths(paths)
			if err != nil {
				return err
			}
			if err := checkInputFile("--trace", trace); err != nil {
				return err
			}
			if err := checkProfileFlag(profile, paths); err != nil {
				return err
			}
			res, err := emulator.ReplayFile(cmd.Context(), trace, profile, emulator.ReplayOptions{Partial: partial}, paths...)
			if errors.Is(err, emulator.ErrTraceTruncated) {
				return fmt.Errorf("%w; give --partial to replay the requests before that point", err)
			}
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			printReplay(cmd.OutOrStdout(), trace, res)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&trace, "trace", "", "trace file recorded by the emulator (--record-trace)")
	f.StringVar(&profile, "profile", "", "device profile or spec to replay through")
	f.StringSliceVar(&paths, "profiles", nil, "profile file or directory of *.yaml files (repeatable; default: the user directory if it exists)")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.BoolVar(&partial, "partial", false, "replay a trace that ends early up to where it ends, and say so, instead of refusing it")
	cmd.MarkFlagRequired("trace")
	cmd.MarkFlagRequired("profile")
	return cmd
}

func printReplay(out io.Writer, trace string, res emulator.ReplayResult) {
	fmt.Fprintf(out, "trace %s through %s\n", trace, res.Spec)
	if res.Incomplete != "" {
		fmt.Fprintf(out, "INCOMPLETE: %s; the figures below cover the %d requests before that point\n", res.Incomplete, res.Requests)
	}
	if res.TraceFormat == 1 {
		fmt.Fprintln(out, "note      format 1 trace (an older tierbench): it has no checksums or end marker, so a file cut short or altered cannot be detected")
	}
	fmt.Fprintf(out, "requests  %d (reads %d, writes %d, flushes %d; %d / %d bytes read / written)\n",
		res.Requests, res.Model.Reads, res.Model.Writes, res.Model.Flushes, res.Model.ReadBytes, res.Model.WriteBytes)
	fmt.Fprintf(out, "I/O time  %v (sum of latencies)\nbusy      %v of %v\nlatency   mean %v  p50 %v  p99 %v  max %v\nenergy    %.1f J\n",
		res.IOTime, res.Busy, res.Span, res.Latency.Mean(), res.Latency.Quantile(0.5), res.Latency.Quantile(0.99), res.Latency.Max(), res.EnergyJ)
}
