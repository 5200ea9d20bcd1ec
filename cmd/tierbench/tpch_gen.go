package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"tierbench/internal/capacity"
	"tierbench/internal/workload/tpch/dbgen"
)

func newTPCHGenCommand() *cobra.Command {
	var (
		sfText, out, tables string
		chunks, step        int
		updates, workers    int
		ignoreLimits        bool
		updateSet           int
	)
	cmd := &cobra.Command{
		Use:   "gen",
		Short: "Generate TPC-H data files byte-identical to dbgen 2.17.3",
		Example: `  tierbench tpch gen --sf 1 --out /data/tpch-sf1
  tierbench tpch gen --sf 10 --out part3 --chunks 4 --step 3
  tierbench tpch gen --sf 1 --out upd --tables orders --updates 3
  tierbench tpch gen --sf 100 --out upd --update-set 75`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sf, err := parseSF(sfText)
			if err != nil {
				return err
			}
			list, err := parseTables(tables)
			if err != nil {
				return err
			}
			if chunks < 1 {
				return fmt.Errorf("--chunks %d: give 1 or more chunks", chunks)
			}
			if chunks > 1 && (step < 1 || step > chunks) {
				return fmt.Errorf("--step %d: with --chunks %d give a step from 1 to %d", step, chunks, chunks)
			}
			upd, err := updateSetsFlags(cmd, sf, updates, updateSet)
			if err != nil {
				return err
			}
			if workers < 0 {
				return fmt.Errorf("--workers %d: give 0 (all cores) or more", workers)
			}
			if out == "" {
				return fmt.Errorf("--out is required: the directory to write the .tbl files to")
			}
			opt := dbgen.Options{SF: sf, Chunks: chunks, Step: step, Workers: workers}
			need := capacity.Need{
				What:   fmt.Sprintf("tpch gen --sf %v", sf),
				Memory: dbgen.MemoryBytes, Disk: dbgen.FileBytes(list, opt, upd.Count()), DiskDir: out,
				Basis: fmt.Sprintf("the generator holds %s; the files are the sizes dbgen writes", capacity.Bytes(dbgen.MemoryBytes)),
			}
			if updateSet > 0 {
				need.What += fmt.Sprintf(" --update-set %d", updateSet)
			} else if updates > 0 {
				need.What += fmt.Sprintf(" --updates %d", updates)
			}
			if upd.Count() > 0 {
				need.Basis += fmt.Sprintf(", %s an update set", capacity.Bytes(dbgen.UpdateSetBytes(sf)))
			}
			if err := capacity.Check(need, ignoreLimits); err != nil {
				return err
			}
			if err := ensureWritableDir("--out", out); err != nil {
				return err
			}
			start := time.Now()
			if err := dbgen.WriteFiles(cmd.Context(), out, list, opt, upd); err != nil {
				return err
			}
			what := slices.Clone(list)
			switch {
			case upd.From > 0 && upd.From == upd.To:
				what = append(what, fmt.Sprintf("update set %d", upd.From))
			case upd.From > 0:
				what = append(what, fmt.Sprintf("update sets %d..%d", upd.From, upd.To))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "generated %s at SF %v in %s (%.2f s)\n",
				strings.Join(what, ", "), sf, out, time.Since(start).Seconds())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&sfText, "sf", "1", "scale factor (0.01 to 100000)")
	f.StringVar(&out, "out", "", "directory for the .tbl files (created if missing)")
	f.StringVar(&tables, "tables", "", "comma-separated tables (default: all 8; with --updates and no --tables, only the update sets)")
	registerInt(cmd, &chunks, "chunks", 1, "split the data into this many chunks (dbgen -C)")
	registerInt(cmd, &step, "step", 1, "the chunk to generate, 1..chunks (dbgen -S)")
	registerInt(cmd, &updates, "updates", 0, "also write update sets 1..N (orders.tbl.uN, lineitem.tbl.uN, delete.N), as dbgen -U N")
	registerInt(cmd, &updateSet, "update-set", 0, "also write update set K alone, as dbgen -U K -S K (earlier sets are skipped, not generated)")
	registerInt(cmd, &workers, "workers", 0, "goroutines to generate with (0 = all cores); output is identical for any value")
	registerIgnoreLimits(cmd, &ignoreLimits)
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error {
		// With --updates or --update-set alone the user asked for update sets, not the base data.
		asked := (cmd.Flags().Changed("updates") && updates > 0) || cmd.Flags().Changed("update-set")
		if asked && !cmd.Flags().Changed("tables") {
			tables = "none"
		}
		return nil
	}
	return cmd
}

// updateSetsFlags checks --updates and --update-set against what dbgen's
// refresh data defines at sf and returns the sets to write.
func updateSetsFlags(cmd *cobra.Command, sf float64, updates, updateSet int) (dbgen.UpdateSets, error) {
	max := dbgen.MaxUpdateSet(sf)
	limit := fmt.Sprintf("at SF %v dbgen's refresh data has sets 1 to %d (from set 1000 on its delete keys name orders that were never loaded)", sf, max)
	switch {
	case cmd.Flags().Changed("update-set") && cmd.Flags().Changed("updates"):
		return dbgen.UpdateSets{}, fmt.Errorf("--updates %d and --update-set %d: give one; --updates N writes sets 1..N, --update-set K writes set K alone", updates, updateSet)
	case cmd.Flags().Changed("update-set"):
		if updateSet < 1 {
			return dbgen.UpdateSets{}, fmt.Errorf("--update-set %d: update sets are numbered from 1; %s", updateSet, limit)
		}
		if updateSet > max {
			return dbgen.UpdateSets{}, fmt.Errorf("--update-set %d: %s", updateSet, limit)
		}
		return dbgen.UpdateSets{From: updateSet, To: updateSet}, nil
	case updates < 0:
		return dbgen.UpdateSets{}, fmt.Errorf("--updates %d: give 0 or more update sets", updates)
	case updates > max:
		return dbgen.UpdateSets{}, fmt.Errorf("--updates %d: %s", updates, limit)
	case updates > 0:
		return dbgen.UpdateSets{From: 1, To: updates}, nil
	}
	return dbgen.UpdateSets{}, nil
}

// parseTables turns --tables into a list; empty means all, "none" means no base tables.
func parseTables(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return slices.Clone(dbgen.Tables), nil
	}
	if s == "none" {
		return nil, nil
	}
	var list []string
	for _, t := range strings.Split(s, ",") {
		t = strings.ToLower(strings.TrimSpace(t))
		if !slices.Contains(dbgen.Tables, t) {
			return nil, fmt.Errorf("--tables: unknown table %q: valid tables are %s", t, strings.Join(dbgen.Tables, ","))
		}
		if !slices.Contains(list, t) {
			list = append(list, t)
		}
	}
	return list, nil
}
