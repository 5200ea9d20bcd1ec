package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"tierbench/internal/oltp/mix"
	"tierbench/internal/workload"
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
	b := mix.NewBenchmark()
	cmd.AddCommand(newOLTPLoadCommand(b), newOLTPRunCommand(b), newOLTPMixesCommand(), newOLTPShowCommand())
	return cmd
}

func newOLTPLoadCommand(b *mix.Benchmark) *cobra.Command {
	return phaseCommand(&cobra.Command{
		Use:   "load",
		Short: "Create a mix's tables and populate them",
		Long: `Create a mix's tables and populate them, in parallel and deterministically for
--seed, then build the secondary indexes and collect statistics. The mix's tables are
dropped first if they exist, also on a server given by --dsn.`,
		Example: `  tierbench oltp load --mix point-select --out runs/ps-sqlite
  tierbench oltp load --engine postgres --mix policy --scale 10 --out runs/policy-pg
  tierbench oltp load --mix ./my-mix.yaml --out runs/mine`,
	}, b, workload.Load, keptSettings, b.Load)
}

func newOLTPRunCommand(b *mix.Benchmark) *cobra.Command {
	return phaseCommand(&cobra.Command{
		Use:   "run",
		Short: "Run a mix with virtual users and report TPS, QPS and latencies per transaction",
		Example: `  tierbench oltp run --mix point-select --users 4 --duration 1m --out runs/ps-sqlite
  tierbench oltp run --engine postgres --mix policy --users 5,50,500 --ramp 30s --duration 2m --out runs/policy-pg
  tierbench oltp run --engine mysql --mix ecommerce --rate 500 --users 32 --duration 5m --out runs/shop-my`,
	}, b, workload.Run, keptSettings, b.Run)
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
