package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"tierbench/internal/files"
	"tierbench/internal/metrics"
)

func newFilesCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "files",
		Short: "A Postmark-compatible file workload: small files created, read, appended and deleted",
	}
	cmd.AddCommand(newFilesRunCommand())
	return cmd
}

func newFilesRunCommand() *cobra.Command {
	var (
		dir, out, preset                 string
		sizeMin, sizeMax, rBlock, wBlock string
		ignoreLimits                     bool
	)
	c := files.PostmarkDefaults()
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run Postmark 1.5's workload in a directory: a pool of files, then transactions",
		Long: `Runs Postmark 1.5's workload: a pool of files with sizes in a range, spread over
subdirectories, then transactions that each read or append to a file and create or
delete one (with Postmark's biases), then the deletion of every file left. The same
parameters and seed give the same operations as Debian's postmark.

The files live in a new directory inside --dir, removed at the end. Parameters not
given come from --preset, or else from Postmark's defaults. The result goes to
OUT/result.json.`,
		Example: `  tierbench files run --dir /srv/test --preset medium --out runs/files-medium
  tierbench files run --dir /srv/test --files 1000 --transactions 20000 --size-min 500 --size-max 10000 --out runs/pm
  tierbench files run --dir /srv/test --preset non-load --idle 5m --out runs/idle`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, s := range []struct {
				flag, text string
				to         *int
			}{{"size-min", sizeMin, &c.SizeMin}, {"size-max", sizeMax, &c.SizeMax}, {"read-block", rBlock, &c.ReadBlock}, {"write-block", wBlock, &c.WriteBlock}} {
				if cmd.Flags().Changed(s.flag) {
					n, err := parseSize("--"+s.flag, s.text)
					if err != nil {
						return err
					}
					*s.to = int(min(n, 1<<40)) // Validate names the flag of a size too large
				}
			}
			if preset != "" {
				p, err := files.LookupPreset(preset)
				if err != nil {
					return err
				}
				c = p.Override(c, func(flag string) bool { return cmd.Flags().Changed(strings.TrimPrefix(flag, "--")) })
			}
			if err := c.Validate(); err != nil {
				return err
			}
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				return fmt.Errorf("--dir %s: not an existing directory: create it, or give the directory (a mount of the device under test) to run in", dir)
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return fmt.Errorf("--out %s: %w", out, err)
			}
			res, err := files.Run(cmd.Context(), dir, c, files.Options{Preset: preset, IgnoreLimits: ignoreLimits})
			if res == nil {
				return err
			}
			path := filepath.Join(out, "result.json")
			if werr := metrics.WriteJSONFile(path, res); werr != nil && err == nil {
				err = werr
			}
			files.WriteSummary(cmd.OutOrStdout(), res)
			fmt.Fprintf(cmd.OutOrStdout(), "\nresult: %s\n", path)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "directory to run in (the files go in a new directory inside it)")
	f.StringVar(&out, "out", "", "output directory for result.json")
	f.StringVar(&preset, "preset", "", "load level: "+strings.Join(files.PresetNames(), ", ")+" (flags given override its parameters)")
	f.IntVar(&c.Files, "files", c.Files, "files in the pool (Postmark's 'set number')")
	f.IntVar(&c.Transactions, "transactions", c.Transactions, "transactions to run")
	f.StringVar(&sizeMin, "size-min", fmt.Sprint(c.SizeMin), "smallest file size, bytes or with a unit (16KiB)")
	f.StringVar(&sizeMax, "size-max", fmt.Sprint(c.SizeMax), "largest file size; appends grow files up to it")
	f.IntVar(&c.Subdirs, "subdirs", c.Subdirs, "subdirectories the files are spread over (0 or 1: none)")
	f.StringVar(&rBlock, "read-block", fmt.Sprint(c.ReadBlock), "bytes of each read call")
	f.StringVar(&wBlock, "write-block", fmt.Sprint(c.WriteBlock), "bytes of each write call")
	f.BoolVar(&c.Buffered, "buffered", c.Buffered, "buffer reads and writes in the process as C stdio does (--buffered=false: one system call per block)")
	f.IntVar(&c.ReadBias, "read-bias", c.ReadBias, "chance in tenths that a transaction reads rather than appends (-1: neither)")
	f.IntVar(&c.CreateBias, "create-bias", c.CreateBias, "chance in tenths that a transaction creates rather than deletes (-1: neither)")
	f.IntVar(&c.Seed, "seed", c.Seed, "seed of the random numbers, as Postmark's 'set seed'")
	f.DurationVar(&c.Idle, "idle", 0, "an idle run of this length: no files (preset non-load: 1m)")
	registerIgnoreLimits(cmd, &ignoreLimits)
	_ = cmd.MarkFlagRequired("dir")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}
