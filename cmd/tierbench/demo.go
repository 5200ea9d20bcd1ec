package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"tierbench/internal/demo"
	"tierbench/internal/device"
	"tierbench/internal/emulator"
	"tierbench/internal/lifecycle"
	"tierbench/internal/placement"
	"tierbench/internal/progress"
)

func newDemoCommand() *cobra.Command {
	var (
		out, sfText, devicesText string
		pageCache, cacheText     string
		profiles                 []string
		grid                     float64
		asJSON                   bool
		emuPath                  string
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "TPC-H on SQLite on an emulated 7,200 rpm disk, a SATA SSD, an NVMe SSD and a DRAM SSD, in one table",
		Long: `Run TPC-H at SF 0.01 on embedded SQLite four times, each on an emulated device
(hdd-7200, sata-ssd, nvme and dram-ssd), and print one table: QphH@Size and its
unrounded twin, load time, the device's IOPS and utilisation, and its energy per query.

Every run has the same qgen seed, SQLite cache and page cache model in front of the
device (the emulated machine's RAM), so the device is what differs. The runs take a
minute or two in all on a small machine. With --emulator fuse, a device faster than
this host's FUSE round trip (dram-ssd and nvme on most virtual machines) is replaced by
the next fastest one, and the table says so.`,
		Example: `  tierbench demo
  tierbench demo --json
  tierbench demo --out runs/demo        # keeps runs/demo/<device>/result.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg := demo.Config{GridIntensity: grid}
			var err error
			if cfg.SF, err = parseSF(sfText); err != nil {
				return err
			}
			if math.IsNaN(grid) || grid < 0 {
				return fmt.Errorf("--grid-intensity %v: give grams of CO2 per kWh, 0 or more", grid)
			}
			if cfg.CacheBytes, err = parseSize("--cache", cacheText); err != nil {
				return err
			}
			if cfg.CacheBytes < 64<<10 {
				return fmt.Errorf("--cache %s: give at least 64KiB", cacheText)
			}
			if strings.EqualFold(strings.TrimSpace(pageCache), "none") {
				cfg.PageCache = -1
			} else if cfg.PageCache, err = parseSize("--page-cache", pageCache); err != nil {
				return err
			} else if cfg.PageCache < 1<<20 {
				return fmt.Errorf("--page-cache %s: give at least 1MiB, or none", pageCache)
			}
			paths, err := device.ProfilePaths(profiles)
			if err != nil {
				return err
			}
			cfg.Emulator.Profiles = paths
			if cfg.Emulator.Path, err = emulator.ParsePath(emuPath); err != nil {
				return err
			}
			if cfg.Registry, err = device.Load(paths...); err != nil {
				return fmt.Errorf("--profiles: %w", err)
			}
			if devicesText != "" {
				for _, d := range strings.Split(devicesText, ",") {
					d = strings.TrimSpace(d)
					if _, err := cfg.Registry.Lookup(d); err != nil {
						return fmt.Errorf("--devices: %w", err)
					}
					cfg.Slots = append(cfg.Slots, demo.Slot{Want: d})
				}
			}
			keep := out != ""
			if keep {
				if err := ensureWritableDir("--out", out); err != nil {
					return err
				}
				cfg.OutDir = out
			} else {
				if cfg.OutDir, err = os.MkdirTemp("", "tierbench-demo-"); err != nil {
					return fmt.Errorf("demo: %w", err)
				}
				defer os.RemoveAll(cfg.OutDir)
			}
			if err := os.Chmod(cfg.OutDir, 0o755); err != nil {
				return fmt.Errorf("demo: %w", err)
			}
			cfg.Log, cfg.Command = cmd.ErrOrStderr(), lifecycle.CommandLine(os.Args)
			if progress.IsTerminal(os.Stderr) {
				cfg.Progress = os.Stderr
			}
			if err := cfg.Defaults(); err != nil {
				return err
			}
			rows, err := demo.Run(cmd.Context(), cfg)
			if !keep {
				for i := range rows {
					rows[i].Result = ""
				}
			}
			if len(rows) > 0 {
				if asJSON {
					if werr := demo.WriteJSON(cmd.OutOrStdout(), rows); werr != nil {
						return werr
					}
				} else {
					demo.WriteTable(cmd.OutOrStdout(), cfg, rows)
					if keep {
						fmt.Fprintf(cmd.OutOrStdout(), "results: %s\n", filepath.Join(out, "<device>", "result.json"))
					}
				}
			}
			if err != nil {
				if errors.Is(err, context.Canceled) {
					return fmt.Errorf("interrupted: %w", err)
				}
				return err
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "keep each run's result.json in OUT/<device>/ (default: a temporary directory, removed)")
	f.BoolVar(&asJSON, "json", false, "print the table as a JSON list of rows")
	f.StringVar(&sfText, "sf", fmt.Sprint(demo.DefaultSF), "TPC-H scale factor")
	f.StringVar(&devicesText, "devices", "", "comma-separated device profiles instead of the default four (no substitution)")
	f.StringVar(&pageCache, "page-cache", fmt.Sprintf("%dMiB", demo.DefaultPageCache>>20), "page cache model in front of each device (the emulated machine's RAM), or none")
	f.StringVar(&cacheText, "cache", fmt.Sprintf("%dKiB", demo.DefaultCacheBytes>>10), "SQLite cache size")
	f.Float64Var(&grid, "grid-intensity", placement.DefaultGridIntensity, "grams of CO2 per kWh for the devices' CO2 in result.json (475: the "+placement.GridIntensitySource+")")
	f.StringSliceVar(&profiles, "profiles", nil, "device profile file or directory of *.yaml files (default: "+device.DefaultUserDir()+" if it exists)")
	f.StringVar(&emuPath, "emulator", emulator.PathAuto, "how the devices are emulated: preload (SQLite's VFS, a few us a request), fuse (a FUSE mount), or auto (preload)")
	return cmd
}
