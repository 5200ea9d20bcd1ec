package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"tierbench/internal/device"
)

func newDeviceCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "device",
		Short: "Storage device profiles and their models",
	}
	cmd.AddCommand(newDeviceListCommand(), newDeviceCalibrateCommand(), newDeviceReplayCommand(), newDeviceServeCommand())
	return cmd
}

// deviceListing is one profile in `device list --json`.
type deviceListing struct {
	Name        string                   `json:"name"`
	Class       string                   `json:"class"`
	Description string                   `json:"description,omitempty"`
	Origin      string                   `json:"origin"`
	Source      string                   `json:"source,omitempty"`
	Power       device.Power             `json:"power"`
	Figures     deviceFigures            `json:"figures"`
	Fields      map[string]device.Figure `json:"fields"`
}

type deviceFigures struct {
	RandRead8KQD1us    float64 `json:"rand_read_8k_qd1_us"`
	RandRead4KQD1IOPS  float64 `json:"rand_read_4k_qd1_iops"`
	RandRead4KQD32IOPS float64 `json:"rand_read_4k_qd32_iops"`
	SeqReadMBps        float64 `json:"seq_read_1m_qd1_mbps"`
}

func newDeviceListCommand() *cobra.Command {
	var (
		paths  []string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List device profiles with figures computed from their models",
		Long: `List the built-in device profiles and users' profiles, with figures computed
from each model (random 8K read latency and 4K read IOPS at queue depth 1 and 32,
sequential 1 MiB read rate), power and sources; then the composites that wrap any
profile and how to spell them.

Users' profiles are YAML files read from --profiles (files or directories, repeatable),
or else from ` + device.DefaultUserDir() + ` if it exists.`,
		Example: `  tierbench device list
  tierbench device list --profiles ./devices --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			paths, err := device.ProfilePaths(paths)
			if err != nil {
				return err
			}
			reg, err := device.Load(paths...)
			if err != nil {
				return err
			}
			var list []deviceListing
			for _, p := range reg.Profiles() {
				f, err := reg.Characterize(p.Name)
				if err != nil {
					return fmt.Errorf("profile %s: %w", p.Name, err)
				}
				list = append(list, deviceListing{
					Name: p.Name, Class: p.Class, Description: p.Description,
					Origin: p.Origin, Source: p.Source, Power: p.Power(), Fields: p.Fields,
					Figures: deviceFigures{
						RandRead8KQD1us:    float64(f.RandRead8KQD1.Nanoseconds()) / 1e3,
						RandRead4KQD1IOPS:  f.RandRead4KQD1IOPS,
						RandRead4KQD32IOPS: f.RandRead4KQD32IOPS,
						SeqReadMBps:        f.SeqReadMBps,
					},
				})
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					Profiles []deviceListing    `json:"profiles"`
					Classes  []device.ClassInfo `json:"classes"`
				}{list, device.Classes()})
			}
			return printDeviceTable(cmd.OutOrStdout(), list)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&paths, "profiles", nil, "profile file or directory of *.yaml files (repeatable; default: the user directory if it exists)")
	f.BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	return cmd
}

func printDeviceTable(out io.Writer, list []deviceListing) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCLASS\t8K READ QD1\t4K IOPS QD1\t4K IOPS QD32\tSEQ MB/s\tIDLE W\tACTIVE W\tPOWER OF\tORIGIN\tSOURCE")
	for _, d := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%.0f\t%.0f\t%g\t%g\t%s\t%s\t%s\n",
			d.Name, d.Class, formatLatency(d.Figures.RandRead8KQD1us),
			d.Figures.RandRead4KQD1IOPS, d.Figures.RandRead4KQD32IOPS, d.Figures.SeqReadMBps,
			d.Power.IdleW, d.Power.ActiveW, d.Power.Scope, filepath.Base(d.Origin), d.Source)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out, "\nComposites wrap any profile (quote specs in a shell: parentheses are shell syntax):")
	for _, c := range device.Classes() {
		if c.Composite {
			fmt.Fprintf(out, "  %-10s %s\n             %s\n", c.Name, c.Help, c.Syntax)
		}
	}
	fmt.Fprintln(out, "\nAny profile's fields can be set the same way, e.g. hdd-7200(write_cache=off).")
	return nil
}

func formatLatency(us float64) string {
	if us >= 1000 {
		return fmt.Sprintf("%.2f ms", us/1000)
	}
	return fmt.Sprintf("%.1f us", us)
}
