package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"tierbench/internal/workload/tpch"
	"tierbench/internal/workload/tpch/qgen"
)

func newTPCHQgenCommand() *cobra.Command {
	var (
		sfText, dialect string
		seed            int64
		stream          int
		params, useDef  bool
	)
	cmd := &cobra.Command{
		Use:   "qgen",
		Short: "Print TPC-H substitution parameters or a stream's queries as executable SQL",
		Example: `  tierbench tpch qgen --sf 1 --seed 101000000 --params
  tierbench tpch qgen --default --params
  tierbench tpch qgen --dialect postgres --sf 1 --seed 101000000 --stream 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sf, err := parseSF(sfText)
			if err != nil {
				return err
			}
			if stream < 0 {
				return fmt.Errorf("--stream %d: give 0 (the power test) or a throughput stream 1, 2, ...", stream)
			}
			if seed == 0 && !useDef {
				// qgen without -r seeds from the clock; tierbench takes the clock in the
				// spec's form, mmddhhmmss (never a multiple of 2^31-1), as tpch run does.
				seed = tpch.SeedFromTime(time.Now())
				fmt.Fprintf(cmd.ErrOrStderr(), "qgen: using seed %d, the current time as mmddhhmmss (UTC); give --seed %d to draw the same parameters again\n", seed, seed)
			}
			w := cmd.OutOrStdout()
			if params {
				var text string
				if useDef {
					text = qgen.FormatDefaultParams()
				} else if text, err = qgen.FormatParams(sf, seed); err != nil {
					return err
				}
				_, err = fmt.Fprint(w, text)
				return err
			}
			if dialect == "" {
				return fmt.Errorf("give --params to print parameters, or --dialect sqlite|postgres|mysql to print a stream's queries")
			}
			queries, err := qgen.Stream(dialect, sf, seed, stream, useDef)
			if err != nil {
				return err
			}
			for pos, q := range queries {
				fmt.Fprintf(w, "-- Q%d (stream %d, position %d)\n", q.Number, stream, pos+1)
				for _, s := range q.Setup {
					fmt.Fprintln(w, terminate(s))
				}
				fmt.Fprintln(w, terminate(q.SQL))
				for _, s := range q.Teardown {
					fmt.Fprintln(w, terminate(s))
				}
				fmt.Fprintln(w)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&sfText, "sf", "1", "scale factor the parameters are drawn for")
	registerSeed(cmd, &seed, 0, 0, qgen.MaxSeed, "qgen seed (-r), decimal; the spec uses the end-of-load timestamp mmddhhmmss (0 = the current time in that form)")
	f.BoolVar(&params, "params", false, "print the substitution parameters in the format of qgen -l")
	f.BoolVar(&useDef, "default", false, "use the qualification parameters (qgen -d)")
	f.StringVar(&dialect, "dialect", "", "print executable SQL for sqlite, postgres or mysql")
	registerInt(cmd, &stream, "stream", 0, "stream number: 0 is the power test, 1..S the throughput streams")
	return cmd
}

func terminate(s string) string {
	s = strings.TrimRight(s, " \t\n;")
	return s + ";"
}
