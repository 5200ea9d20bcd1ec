package tpch

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"tierbench/internal/capacity"
	"tierbench/internal/params"
	"tierbench/internal/rundir"
	"tierbench/internal/workload/tpch/dbgen"
)

// GenSettings are the parameters of `tierbench tpch gen`, dbgen's command line in
// tierbench: the scale factor, the tables, dbgen's chunks (-C, -S) and update sets
// (-U), and where the files go. Write checks them together and writes the files.
type GenSettings struct {
	set                *params.Set
	sf, out, tables    string
	chunks, step       int
	updates, updateSet int
	workers            int
	ignoreLimits       bool
	tablesP, updatesP  *params.Param
	updateSetP         *params.Param
}

// NewGenSettings returns tpch gen's parameters at their defaults.
func NewGenSettings() *GenSettings {
	g := &GenSettings{set: params.NewSet("tpch gen")}
	s := g.set
	s.String(&g.sf, "sf", "1", params.Float, "scale factor (0.01 to 100000)")
	s.String(&g.out, "out", "", params.String, "directory for the .tbl files (created if missing)")
	g.tablesP = s.String(&g.tables, "tables", "", params.String, "comma-separated tables (default: all 8; with --updates and no --tables, only the update sets)")
	s.Int(&g.chunks, "chunks", 1, "split the data into this many chunks (dbgen -C)")
	s.Int(&g.step, "step", 1, "the chunk to generate, 1..chunks (dbgen -S)")
	g.updatesP = s.Int(&g.updates, "updates", 0, "also write update sets 1..N (orders.tbl.uN, lineitem.tbl.uN, delete.N), as dbgen -U N")
	g.updateSetP = s.Int(&g.updateSet, "update-set", 0, "also write update set K alone, as dbgen -U K -S K (earlier sets are skipped, not generated)")
	s.Int(&g.workers, "workers", 0, "goroutines to generate with (0 = all cores); output is identical for any value")
	s.Bool(&g.ignoreLimits, strings.TrimPrefix(capacity.OverrideFlag, "--"), false, capacity.OverrideHelp)
	return g
}

// Params are the parameters, for a command line.
func (g *GenSettings) Params() *params.Set { return g.set }

// Write checks the parameters, refuses what this host cannot hold (capacity.Check)
// before anything is written, writes the files and says on stdout what it wrote.
func (g *GenSettings) Write(ctx context.Context, stdout io.Writer) error {
	sf, err := ParseSF(g.sf)
	if err != nil {
		return err
	}
	tables := g.tables
	if g.updatesAsked() && !g.tablesP.Changed() {
		tables = "none" // --updates or --update-set alone ask for update sets, not the base data
	}
	list, err := parseTables(tables)
	if err != nil {
		return err
	}
	if g.chunks < 1 {
		return fmt.Errorf("--chunks %d: give 1 or more chunks", g.chunks)
	}
	if g.chunks > 1 && (g.step < 1 || g.step > g.chunks) {
		return fmt.Errorf("--step %d: with --chunks %d give a step from 1 to %d", g.step, g.chunks, g.chunks)
	}
	upd, err := g.updateSets(sf)
	if err != nil {
		return err
	}
	if g.workers < 0 {
		return fmt.Errorf("--workers %d: give 0 (all cores) or more", g.workers)
	}
	if g.out == "" {
		return fmt.Errorf("--out is required: the directory to write the .tbl files to")
	}
	opt := dbgen.Options{SF: sf, Chunks: g.chunks, Step: g.step, Workers: g.workers}
	if err := capacity.Check(g.need(list, opt, upd), g.ignoreLimits); err != nil {
		return err
	}
	if err := rundir.EnsureWritable("--out", g.out); err != nil {
		return err
	}
	start := time.Now()
	if err := dbgen.WriteFiles(ctx, g.out, list, opt, upd); err != nil {
		return err
	}
	what := slices.Clone(list)
	switch {
	case upd.From > 0 && upd.From == upd.To:
		what = append(what, fmt.Sprintf("update set %d", upd.From))
	case upd.From > 0:
		what = append(what, fmt.Sprintf("update sets %d..%d", upd.From, upd.To))
	}
	_, err = fmt.Fprintf(stdout, "generated %s at SF %v in %s (%.2f s)\n", strings.Join(what, ", "), sf, g.out, time.Since(start).Seconds())
	return err
}

// updatesAsked says --updates N (above 0) or --update-set was given.
func (g *GenSettings) updatesAsked() bool {
	return (g.updatesP.Changed() && g.updates > 0) || g.updateSetP.Changed()
}

// need is what writing list and upd takes of this host: the generator's memory and
// the files' sizes as dbgen writes them.
func (g *GenSettings) need(list []string, opt dbgen.Options, upd dbgen.UpdateSets) capacity.Need {
	need := capacity.Need{
		What:   fmt.Sprintf("tpch gen --sf %v", opt.SF),
		Memory: dbgen.MemoryBytes, Disk: dbgen.FileBytes(list, opt, upd.Count()), DiskDir: g.out,
		Basis: fmt.Sprintf("the generator holds %s; the files are the sizes dbgen writes", capacity.Bytes(dbgen.MemoryBytes)),
	}
	if g.updateSet > 0 {
		need.What += fmt.Sprintf(" --update-set %d", g.updateSet)
	} else if g.updates > 0 {
		need.What += fmt.Sprintf(" --updates %d", g.updates)
	}
	if upd.Count() > 0 {
		need.Basis += fmt.Sprintf(", %s an update set", capacity.Bytes(dbgen.UpdateSetBytes(opt.SF)))
	}
	return need
}

// updateSets checks --updates and --update-set against what dbgen's refresh data
// defines at sf and returns the sets to write.
func (g *GenSettings) updateSets(sf float64) (dbgen.UpdateSets, error) {
	max := dbgen.MaxUpdateSet(sf)
	limit := fmt.Sprintf("at SF %v dbgen's refresh data has sets 1 to %d (from set 1000 on its delete keys name orders that were never loaded)", sf, max)
	updates, set := g.updates, g.updateSet
	switch {
	case g.updateSetP.Changed() && g.updatesP.Changed():
		return dbgen.UpdateSets{}, fmt.Errorf("--updates %d and --update-set %d: give one; --updates N writes sets 1..N, --update-set K writes set K alone", updates, set)
	case g.updateSetP.Changed():
		if set < 1 {
			return dbgen.UpdateSets{}, fmt.Errorf("--update-set %d: update sets are numbered from 1; %s", set, limit)
		}
		if set > max {
			return dbgen.UpdateSets{}, fmt.Errorf("--update-set %d: %s", set, limit)
		}
		return dbgen.UpdateSets{From: set, To: set}, nil
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
