package placement

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"tierbench/internal/emulator"
)

// WriteSummary prints the storage section for people: one line per tier with its
// device's counters and energy, the total, and the settings placement added.
func WriteSummary(w io.Writer, s *Storage) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "\nStorage")
	if s.FlushMethod != "" {
		fmt.Fprintf(w, " (flush method %s)", s.FlushMethod)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  tier\tholds\tdevice\treads\twrites\tflushes\tIOPS\tmedia IOPS\tutil\tp50 ms\tp99 ms\tenergy J")
	for _, t := range s.Tiers {
		holds := strings.Join(t.Classes, ",")
		if t.Device == nil {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.Name, holds, t.Dir)
			continue
		}
		d := t.Device
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\t%d\t%.1f\t%.1f\t%.1f%%\t%.3f\t%.3f\t%.1f\n", t.Name, holds, t.Spec,
			d.Reads, d.Writes, d.Flushes, d.IOPS, d.MediaIOPS, 100*d.Utilisation, d.Latency.P50/1e3, d.Latency.P99/1e3, d.EnergyJ)
	}
	tw.Flush()
	fmt.Fprintln(w, "  (reads, writes, IOPS: what the database asked of the device; media IOPS: what reached the device under a page cache or other composite)")
	if e := s.Emulator; e != nil && e.Path == emulator.PathPreload {
		var late []string
		for _, t := range s.Tiers {
			if d := t.Device; d != nil && d.TimingError != nil {
				late = append(late, fmt.Sprintf("%s %.1f/%.1f", t.Name, d.TimingError.P50, d.TimingError.P99))
			}
		}
		fmt.Fprintf(w, "  emulated through the preload path (LD_PRELOAD shim or SQLite VFS); requests returned late by (p50/p99 us): %s\n", strings.Join(late, ", "))
	} else if note := emulatorNote(e); note != "" {
		fmt.Fprintln(w, "  "+note)
	}
	if s.EnergyJ > 0 {
		fmt.Fprintf(w, "  device energy %.1f J, %.3f g CO2 at %g g/kWh (%s)\n", s.EnergyJ, s.CO2g, s.GridIntensity, s.GridIntensitySource)
	}
	for _, t := range s.Tiers {
		if t.TraceFile != "" {
			fmt.Fprintf(w, "  I/O trace of %s: %s (replay it: tierbench device replay --trace %s --profile nvme)\n", t.Name, t.TraceFile, t.TraceFile)
		}
	}
	if len(s.Settings) > 0 {
		var set []string
		for _, st := range s.Settings {
			set = append(set, st.Name+"="+st.Value)
		}
		fmt.Fprintf(w, "  settings placement added: %s (reasons in result.json)\n", strings.Join(set, ", "))
	}
}
