package demo

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"tierbench/internal/device"
)

// WriteTable prints the rows for people, with a note for each substituted device and
// whether the ranking follows the devices' speeds.
func WriteTable(w io.Writer, cfg Config, rows []Row) {
	fmt.Fprintf(w, "TPC-H SF %g on embedded SQLite (cache %d KiB) on emulated devices, each behind a %s page cache model; qgen seed %d on every device\n\n",
		cfg.SF, cfg.CacheBytes>>10, pageCacheText(cfg.PageCache), cfg.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "device\t8K read\tQphH@Size\tQphH unrounded\tload s\tdevice IOPS\tutilisation\tJ/query\twall s\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.2f\t%.1f\t%.0f\t%.1f%%\t%.2f\t%.0f\t\n", r.Device, device.LatencyText(r.Read8KUs),
			r.QphH, r.QphHUnrounded, r.LoadS, r.IOPS, 100*r.Utilisation, r.EnergyPerQueryJ, r.Seconds)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nQphH unrounded: QphH@Size from unrounded query times (at this SF most queries take less than the spec's 0.1 s rounding).")
	fmt.Fprintln(w, "J/query: the device's energy (idle and active watts of its profile over the whole run, load included) per query of the power and throughput tests.")
	for i, r := range rows {
		if r.Verdict == "" {
			continue
		}
		if i == 0 {
			fmt.Fprintln(w, "What limited each device's throughput test (the verdict in its result.json):")
		}
		fmt.Fprintf(w, "  %s: %s\n", r.Device, r.Verdict)
	}
	for _, r := range rows {
		if r.Substitutes != "" {
			fmt.Fprintf(w, "%s stands in for %s, which this host cannot emulate in real time: %s.\n", r.Device, r.Substitutes, r.Why)
		}
	}
	if err := CheckRanking(rows); err != nil {
		fmt.Fprintf(w, "WARNING: the ranking does not follow the devices' speeds: %v (a busy host? run it again)\n", err)
	} else if len(rows) > 1 {
		fmt.Fprintln(w, "The ranking follows the devices' speeds.")
	}
}

func pageCacheText(size int64) string {
	if size < 0 {
		return "no"
	}
	return fmt.Sprintf("%d MiB (%d KiB pages)", size>>20, DefaultPageKiB)
}

// WriteJSON prints the rows as a JSON list.
func WriteJSON(w io.Writer, rows []Row) error {
	if rows == nil {
		rows = []Row{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}
