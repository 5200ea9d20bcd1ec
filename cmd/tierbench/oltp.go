package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"tierbench/internal/engine"
	"tierbench/internal/monitor"
	"tierbench/internal/oltp/mix"
	"tierbench/internal/placement"
	"tierbench/internal/progress"
	"tierbench/internal/verdict"
)

func newOLTPCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "oltp",
		Short: "Transaction mixes declared in a file: load a population, run the mix",
		Long: `Transaction mixes declared in YAML: the schema, how to populate it, and weighted
transactions of parameterised SQL. Bundled mixes are selected by name (--mix
point-select), your own by path (--mix ./my-mix.yaml); 'oltp show NAME' prints a
bundled mix to start from.

A managed instance or SQLite file lives in OUT/db (or --db) and is kept between
commands: load creates it, run starts it again. Remove OUT/db to reclaim it.`,
	}
	cmd.AddCommand(newOLTPLoadCommand(), newOLTPRunCommand(), newOLTPMixesCommand(), newOLTPShowCommand())
	return cmd
}

// openMix reads --mix and applies --scale.
func openMix(name string, scale float64) (*mix.Mix, error) {
	m, err := mix.Open(name)
	if err != nil {
		return nil, fmt.Errorf("--mix: %w", err)
	}
	if scale < 0 {
		return nil, fmt.Errorf("--scale %v: give a factor above 0 (0 keeps the mix's own, %v)", scale, m.Scale)
	}
	if scale > 0 {
		m.Scale = scale
	}
	return m, nil
}

func newOLTPLoadCommand() *cobra.Command {
	var (
		ef           engineFlags
		out, mixName string
		scale        float64
		loaders      int
		seed         int64
	)
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Create a mix's tables and populate them",
		Long: `Create a mix's tables and populate them, in parallel and deterministically for
--seed, then build the secondary indexes and collect statistics. The mix's tables are
dropped first if they exist, also on a server given by --dsn.`,
		Example: `  tierbench oltp load --mix point-select --out runs/ps-sqlite
  tierbench oltp load --engine postgres --mix policy --scale 10 --out runs/policy-pg
  tierbench oltp load --mix ./my-mix.yaml --out runs/mine`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if loaders < 0 {
				return fmt.Errorf("--loaders %d: give 0 (automatic) or more", loaders)
			}
			m, err := openMix(mixName, scale)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			opened, err := openKept(ctx, &ef, out)
			if err != nil {
				return err
			}
			defer opened.Finish()
			lc := mix.LoadConfig{Scale: m.Scale, Seed: seed, Loaders: loaders}
			if progress.IsTerminal(os.Stderr) {
				lc.Progress = os.Stderr
			}
			info, err := mix.Load(ctx, opened.Engine(), m, lc)
			if err != nil {
				return err
			}
			if err := mix.WriteLoadInfo(out, info); err != nil {
				return err
			}
			var parts []string
			for _, t := range m.Tables {
				parts = append(parts, fmt.Sprintf("%s %d", t.Name, info.Rows[t.Name]))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "loaded mix %s at scale %g into %s %s in %.1f s with %d loader(s): %s\n",
				m.Name, m.Scale, info.Engine.Name, info.Engine.Version, info.Seconds, info.Loaders, strings.Join(parts, ", "))
			return finishWithStorage(cmd, opened, out, loadStorageFile)
		},
	}
	registerTPCCEngineFlags(cmd, &ef, &out)
	f := cmd.Flags()
	f.StringVar(&mixName, "mix", "", "bundled mix name ("+strings.Join(mix.Bundled(), ", ")+") or path of a mix file")
	f.Float64Var(&scale, "scale", 0, "multiply the mix's table rows by this factor (0: the mix's own scale)")
	f.IntVar(&loaders, "loaders", 0, "parallel table loads (0: one per core; SQLite always 1)")
	f.Int64Var(&seed, "seed", 1, "seed of the generated data: the same seed gives the same data")
	_ = cmd.MarkFlagRequired("mix")
	return cmd
}

func newOLTPRunCommand() *cobra.Command {
	var (
		ef           engineFlags
		lf           loadFlags
		mf           monitorFlags
		out, mixName string
		think        time.Duration
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a mix with virtual users and report TPS, QPS and latencies per transaction",
		Example: `  tierbench oltp run --mix point-select --users 4 --duration 1m --out runs/ps-sqlite
  tierbench oltp run --engine postgres --mix policy --users 5,50,500 --ramp 30s --duration 2m --out runs/policy-pg
  tierbench oltp run --engine mysql --mix ecommerce --rate 500 --users 32 --duration 5m --out runs/shop-my`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := lf.parse(); err != nil {
				return err
			}
			if think < 0 {
				return fmt.Errorf("--think %s cannot be negative", think)
			}
			if lf.rate > 0 && think > 0 {
				return fmt.Errorf("--rate and --think are exclusive: an open loop sets its own schedule")
			}
			m, err := openMix(mixName, 0)
			if err != nil {
				return err
			}
			li, err := mix.ReadLoadInfo(out)
			if err != nil {
				return err
			}
			var loaded *engine.Info
			if li != nil {
				loaded = &li.Engine
			}
			if err := ef.matchLoaded(cmd, out, mix.LoadInfoFile, loaded); err != nil {
				return err
			}
			if li != nil && li.Mix != m.Name && ef.dsn == "" {
				return fmt.Errorf("--mix %s: %s holds the %s mix's data: run `tierbench oltp load --mix %s --out %s` first", mixName, out, li.Mix, mixName, out)
			} else if li != nil && li.MixSHA256 != m.SHA256 {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: the mix file changed since it was loaded (%s)\n", li.MixFile)
			}
			if err := mf.prepare(ef.dsn); err != nil {
				return err
			}
			defer mf.close()
			ctx := cmd.Context()
			opened, err := lf.open(ctx, &ef, out)
			if err != nil {
				return err
			}
			defer opened.Finish()
			rm, err := mf.start(ctx, opened, out)
			if err != nil {
				return err
			}
			defer rm.stop(cmd.ErrOrStderr())
			rc := mix.RunConfig{Plan: lf.plan(out, cmd.OutOrStdout(), opened), Think: think}
			rc.Observer = rm.Observer()
			res, err := mix.Run(ctx, opened.Engine(), m, rc)
			if sum := rm.stop(cmd.ErrOrStderr()); sum != nil && res != nil {
				res.Monitoring = sum
				res.Judge(res.Levels, opened.verdictFacts(res.Engine.Mode == engine.Embedded))
				err = errors.Join(err, mix.WriteResult(out, res))
			}
			return finishRun(opened, filepath.Join(out, mix.ResultFile), res != nil, err,
				func(st *placement.Storage) error { res.Storage = st; return mix.WriteResult(out, res) },
				func() {
					mix.WriteSummary(cmd.OutOrStdout(), res, m.TxnNames())
					if res.Monitoring != nil {
						fmt.Fprintln(cmd.OutOrStdout())
						monitor.WriteLines(cmd.OutOrStdout(), res.Monitoring, res.Monitoring.Level(res.Users))
						verdict.WriteLines(cmd.OutOrStdout(), res.Verdict)
					}
					fmt.Fprintf(cmd.OutOrStdout(), "\nresult: %s\n", filepath.Join(out, mix.ResultFile))
				})
		},
	}
	registerTPCCEngineFlags(cmd, &ef, &out)
	f := cmd.Flags()
	f.StringVar(&mixName, "mix", "", "bundled mix name ("+strings.Join(mix.Bundled(), ", ")+") or path of a mix file")
	lf.register(cmd, "seed of the users' parameters")
	mf.register(cmd)
	f.DurationVar(&think, "think", 0, "think time after each transaction, e.g. 100ms (closed loop; 0: none)")
	_ = cmd.MarkFlagRequired("mix")
	return cmd
}

func newOLTPMixesCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "mixes",
		Short: "List the bundled mixes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			for _, name := range mix.Bundled() {
				m, err := mix.Open(name)
				if err != nil {
					return err
				}
				var txns []string
				for _, t := range m.Transactions {
					txns = append(txns, fmt.Sprintf("%s %g", t.Name, t.Weight))
				}
				desc := strings.Join(strings.Fields(m.Description), " ")
				if i := strings.Index(desc, ". "); i > 0 {
					desc = desc[:i+1]
				}
				fmt.Fprintf(w, "%-13s %s\n%-13s weights: %s\n", name, desc, "", strings.Join(txns, ", "))
			}
			fmt.Fprintln(cmd.OutOrStdout(), "\n'tierbench oltp show NAME > my.yaml' prints one to copy and edit; run it with --mix my.yaml")
			return nil
		},
	}
}

func newOLTPShowCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "show NAME",
		Short:   "Print a bundled mix's YAML",
		Example: "  tierbench oltp show policy > my-policy.yaml",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				names := mix.Bundled()
				sort.Strings(names)
				return fmt.Errorf("give one bundled mix: %s", strings.Join(names, ", "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := mix.BundledSource(args[0])
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(data)
			return err
		},
	}
}
