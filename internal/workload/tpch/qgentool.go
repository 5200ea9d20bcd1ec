package tpch

import (
	"fmt"
	"io"
	"strings"
	"time"

	"tierbench/internal/params"
	"tierbench/internal/workload/tpch/qgen"
)

// QgenSettings are the parameters of `tierbench tpch qgen`, qgen's command line in
// tierbench: the substitution parameters it draws (-l), or a stream's queries as
// executable SQL for a dialect. Write checks them and prints.
type QgenSettings struct {
	set                 *params.Set
	sf, dialect         string
	seed                int64
	stream              int
	params, useDefaults bool
}

// NewQgenSettings returns tpch qgen's parameters at their defaults.
func NewQgenSettings() *QgenSettings {
	q := &QgenSettings{set: params.NewSet("tpch qgen")}
	s := q.set
	s.String(&q.sf, "sf", "1", params.Float, "scale factor the parameters are drawn for")
	s.Seed(&q.seed, "seed", 0, 0, qgen.MaxSeed, "qgen seed (-r), decimal; the spec uses the end-of-load timestamp mmddhhmmss (0 = the current time in that form)")
	s.Bool(&q.params, "params", false, "print the substitution parameters in the format of qgen -l")
	s.Bool(&q.useDefaults, "default", false, "use the qualification parameters (qgen -d)")
	s.String(&q.dialect, "dialect", "", params.String, "print executable SQL for sqlite, postgres or mysql")
	s.Int(&q.stream, "stream", 0, "stream number: 0 is the power test, 1..S the throughput streams")
	return q
}

// Params are the parameters, for a command line.
func (q *QgenSettings) Params() *params.Set { return q.set }

// Write checks the parameters and prints the parameters or the queries they ask for
// to stdout; the seed taken from the clock, when none is given, is said on stderr.
func (q *QgenSettings) Write(stdout, stderr io.Writer) error {
	sf, err := ParseSF(q.sf)
	if err != nil {
		return err
	}
	if q.stream < 0 {
		return fmt.Errorf("--stream %d: give 0 (the power test) or a throughput stream 1, 2, ...", q.stream)
	}
	seed := q.seed
	if seed == 0 && !q.useDefaults {
		// qgen without -r seeds from the clock; tierbench takes the clock in the
		// spec's form, mmddhhmmss (never a multiple of 2^31-1), as tpch run does.
		seed = SeedFromTime(time.Now())
		fmt.Fprintf(stderr, "qgen: using seed %d, the current time as mmddhhmmss (UTC); give --seed %d to draw the same parameters again\n", seed, seed)
	}
	if q.params {
		var text string
		if q.useDefaults {
			text = qgen.FormatDefaultParams()
		} else if text, err = qgen.FormatParams(sf, seed); err != nil {
			return err
		}
		_, err = fmt.Fprint(stdout, text)
		return err
	}
	if q.dialect == "" {
		return fmt.Errorf("give --params to print parameters, or --dialect sqlite|postgres|mysql to print a stream's queries")
	}
	queries, err := qgen.Stream(q.dialect, sf, seed, q.stream, q.useDefaults)
	if err != nil {
		return err
	}
	for pos, qu := range queries {
		fmt.Fprintf(stdout, "-- Q%d (stream %d, position %d)\n", qu.Number, q.stream, pos+1)
		for _, s := range qu.Setup {
			fmt.Fprintln(stdout, terminate(s))
		}
		fmt.Fprintln(stdout, terminate(qu.SQL))
		for _, s := range qu.Teardown {
			fmt.Fprintln(stdout, terminate(s))
		}
		if _, err := fmt.Fprintln(stdout); err != nil {
			return err
		}
	}
	return nil
}

// terminate ends a statement with one semicolon, for a SQL client to run.
func terminate(s string) string {
	return strings.TrimRight(s, " \t\n;") + ";"
}
