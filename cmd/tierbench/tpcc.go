package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"tierbench/internal/capacity"
	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/oltp"
	"tierbench/internal/oltp/tpcc"
	"tierbench/internal/placement"
	"tierbench/internal/progress"
	"tierbench/internal/result"
)

// exitCheckFailed is the status of `tpcc check` when a consistency condition fails.
const exitCheckFailed = 3

func newTPCCCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tpcc",
		Short: "TPC-C: load a population, run the five-transaction mix, check consistency",
		Long: `TPC-C (revision 5.11) on SQLite, PostgreSQL and MariaDB/MySQL.

A managed instance or SQLite file lives in OUT/db (or --db) and is kept between
commands: load creates it, run and check start it again. Remove OUT/db to reclaim it.`,
	}
	cmd.AddCommand(newTPCCLoadCommand(), newTPCCRunCommand(), newTPCCCheckCommand())
	return cmd
}

// loadStorageFile holds the storage section of `tpcc load` (devices' counters of the load).
const loadStorageFile = "load-storage.json"

// checkFile holds what `tpcc check` found.
const checkFile = "check.json"

// openKept opens the engine with its files placed, keeping its data between commands
// (TPC-C and oltp mixes: load, run and check work on the same database).
func openKept(ctx context.Context, ef *engineFlags, out string) (*openedEngine, error) {
	return ef.open(ctx, out, true)
}

// openLoaded opens the database a load kept (openKept) for run and check: never a new,
// empty one, which would stay behind after the command fails on it.
func openLoaded(ctx context.Context, ef *engineFlags, out string) (*openedEngine, error) {
	ef.mustExist = true
	return openKept(ctx, ef, out)
}

// needLoad refuses run and check on an --out that holds no load (loadFile), before
// anything starts: the database lives there (--db and --dsn name it themselves).
func (ef *engineFlags) needLoad(out, loadFile, loadCmd string) error {
	if ef.dsn != "" || ef.dbDir != "" {
		return nil
	}
	return fmt.Errorf("--out %s holds no load (no %s): run `tierbench %s --engine %s --out %s` first", out, loadFile, loadCmd, ef.name, out)
}

// checkCapacity refuses, before anything is started, a command whose estimate exceeds
// this host's memory or disk (capacity.Check; ignore is --ignore-limits). need gets
// the engine's dialect, whether its server is external, and the directory the data
// will fill ("" for an external server). An unknown engine is left for open to report.
func (ef *engineFlags) checkCapacity(out string, ignore bool, need func(d *engine.Dialect, external bool, dataDir string) (capacity.Need, error)) error {
	d, err := engine.DialectOf(strings.ToLower(ef.name))
	if err != nil {
		return nil
	}
	n, err := need(d, ef.dsn != "", ef.dataDir(out))
	if err != nil {
		return err
	}
	return capacity.Check(n, ignore)
}

// dataDir is the directory whose file system the database's data will fill, before
// the engine opens: "" for an external server (its disk is not this host's to
// measure), a real directory given as the data's tier, OUT for an emulated tier (its
// backing files live in OUT/tiers), else --db or OUT/db.
func (ef *engineFlags) dataDir(out string) string {
	if ef.dsn != "" {
		return ""
	}
	if plan, _, _, err := ef.plan(); err == nil && plan != nil {
		if t, ok := plan.Tier(placement.Data); ok {
			if t.Emulated() {
				return out
			}
			return t.Dir
		}
	}
	if ef.dbDir != "" {
		return ef.dbDir
	}
	return filepath.Join(out, "db")
}

func registerTPCCEngineFlags(cmd *cobra.Command, ef *engineFlags, out *string) {
	ef.register(cmd)
	// TPC-C always keeps its database: load, run and check work on the same one.
	_ = cmd.Flags().MarkHidden("keep-db")
	cmd.Flags().StringVar(out, "out", "", "directory for results and, unless --db or --dsn, the database (created if missing)")
}

func newTPCCLoadCommand() *cobra.Command {
	var (
		ef         engineFlags
		out        string
		ignore     bool
		warehouses int
		loaders    int
		seed       int64
	)
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Create the TPC-C tables and load W warehouses (clause 4.3)",
		Long: `Create the TPC-C tables and load W warehouses (clause 4.3), in parallel and
deterministically for --seed. Existing TPC-C tables (warehouse, district, customer,
history, orders, new_order, order_line, item, stock) are dropped first, also on a
server given by --dsn.`,
		Example: `  tierbench tpcc load --warehouses 1 --out runs/tpcc-sqlite
  tierbench tpcc load --engine postgres --warehouses 10 --out runs/tpcc-pg`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if warehouses < 1 || warehouses > tpcc.MaxWarehouses {
				return fmt.Errorf("--warehouses %d: give 1 to %d (W_ID is a 32-bit INT)", warehouses, tpcc.MaxWarehouses)
			}
			if loaders < 0 {
				return fmt.Errorf("--loaders %d: give 0 (automatic) or more", loaders)
			}
			if err := ef.checkCapacity(out, ignore, func(d *engine.Dialect, external bool, dir string) (capacity.Need, error) {
				return tpcc.LoadNeed(warehouses, loaders, d, external, dir), nil
			}); err != nil {
				return err
			}
			ctx := cmd.Context()
			ef.results = []string{tpcc.LoadInfoFile, loadStorageFile}
			opened, err := openKept(ctx, &ef, out)
			if err != nil {
				return err
			}
			defer opened.Close()
			opened.replaces() // the load drops the data the earlier load's files describe
			lc := tpcc.LoadConfig{Warehouses: warehouses, Seed: seed, Loaders: loaders}
			if progress.IsTerminal(os.Stderr) {
				lc.Progress = os.Stderr
			}
			info, err := tpcc.Load(ctx, opened.Engine(), lc)
			if err != nil {
				return err
			}
			if err := tpcc.WriteLoadInfo(out, info); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "loaded %d warehouse(s) into %s %s in %.1f s with %d loader(s): %s\n",
				warehouses, info.Engine.Name, info.Engine.Version, info.Seconds, info.Loaders, formatRows(info.Rows))
			return finishWithStorage(cmd, opened, out, loadStorageFile)
		},
	}
	registerTPCCEngineFlags(cmd, &ef, &out)
	f := cmd.Flags()
	registerIgnoreLimits(cmd, &ignore)
	f.IntVar(&warehouses, "warehouses", 1, "number of warehouses W (each about 110 MB on disk)")
	f.IntVar(&loaders, "loaders", 0, "parallel table loads (0: one per core; SQLite always 1)")
	registerGeneratorSeed(cmd, &seed, "seed of the generated data: the same seed gives the same data")
	return cmd
}

func formatRows(rows map[string]int64) string {
	var parts []string
	for _, t := range tpcc.Tables {
		parts = append(parts, fmt.Sprintf("%s %d", t, rows[t]))
	}
	return strings.Join(parts, ", ")
}

// parseUsers reads --users: one number or a comma-separated sweep such as 1,2,4,8.
func parseUsers(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("--users %q: give a number of virtual users, or a list such as 1,2,4,8", s)
		}
		if n < 1 {
			return nil, fmt.Errorf("--users %q: every level needs at least 1 virtual user", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// loadFlags are how tpcc run and oltp run generate load: users or a sweep, ramp-up,
// measured window, report interval, open-loop rate and seed.
type loadFlags struct {
	usersText                string
	users                    []int
	maxErrorShare            float64
	ignoreLimits             bool
	ramp, duration, interval time.Duration
	rate                     float64
	seed                     int64
}

func (lf *loadFlags) register(cmd *cobra.Command, seedHelp string) {
	f := cmd.Flags()
	f.StringVar(&lf.usersText, "users", "1", "virtual users, or a sweep such as 1,2,4,8 (each level after its own ramp-up)")
	f.Float64Var(&lf.maxErrorShare, "max-error-share", oltp.DefaultMaxErrorShare,
		"largest share of failed transactions (0 to 1) a level may have and be ok; a transaction type that fails every time fails the level whatever the share")
	registerIgnoreLimits(cmd, &lf.ignoreLimits)
	f.DurationVar(&lf.ramp, "ramp", 10*time.Second, "ramp-up before each measured window, excluded from results")
	f.DurationVar(&lf.duration, "duration", time.Minute, "measured window of each level")
	f.DurationVar(&lf.interval, "interval", 10*time.Second, "report interval of the progress lines and intervals.jsonl")
	f.Float64Var(&lf.rate, "rate", 0, "open loop: transactions per second in total, latency from the intended start (0: closed loop)")
	registerGeneratorSeed(cmd, &lf.seed, seedHelp)
}

// minInterval is the shortest --interval.
const minInterval = 100 * time.Millisecond

// parse checks the flags and reads --users.
func (lf *loadFlags) parse() error {
	users, err := parseUsers(lf.usersText)
	if err != nil {
		return err
	}
	lf.users = users
	if lf.duration <= 0 {
		return fmt.Errorf("--duration %s: give a positive duration such as 30s or 5m", lf.duration)
	}
	if lf.ramp < 0 || lf.interval < 0 {
		return fmt.Errorf("--ramp and --interval cannot be negative")
	}
	if lf.interval > 0 && lf.interval < minInterval {
		// Each interval is a line on the terminal and in intervals.jsonl: --interval
		// 1ns would fill the disk with them, and merge the users' histograms nonstop.
		return fmt.Errorf("--interval %s: give %s or more (0: 10s)", lf.interval, minInterval)
	}
	if !(lf.rate >= 0) || math.IsInf(lf.rate, 0) {
		return fmt.Errorf("--rate %v: give transactions per second, or 0 for a closed loop", lf.rate)
	}
	if !(lf.maxErrorShare >= 0 && lf.maxErrorShare <= 1) {
		return fmt.Errorf("--max-error-share %v: give a share from 0 to 1, e.g. 0.01 for one transaction in a hundred (0: none may fail)", lf.maxErrorShare)
	}
	return nil
}

// plan is the run's plan: the flags, results in out, interval lines on lines, I/O
// counters from opened.
func (lf *loadFlags) plan(out string, lines io.Writer, opened *openedEngine) oltp.Plan {
	return oltp.Plan{Users: lf.users, Ramp: lf.ramp, Duration: lf.duration, Rate: lf.rate, Interval: lf.interval,
		Seed: lf.seed, MaxErrorShare: lf.maxErrorShare, OutDir: out, Lines: lines, IO: opened.IOSampler()}
}

// open opens the engine for a run of tpcc or oltp (openLoaded), telling --client-io
// auto (and a managed server's connection limit) the most users the run will hold at
// once, after refusing a number of users whose sessions this host's memory cannot
// hold, and sets the earlier run's result and intervals aside (restored when this run
// writes none).
func (lf *loadFlags) open(ctx context.Context, cmd *cobra.Command, ef *engineFlags, out string) (*openedEngine, error) {
	ef.sessions = slices.Max(lf.users)
	what := fmt.Sprintf("%s --users %s", cmd.CommandPath(), lf.usersText)
	what = strings.TrimPrefix(what, cmd.Root().Name()+" ")
	if err := ef.checkCapacity(out, lf.ignoreLimits, func(d *engine.Dialect, external bool, _ string) (capacity.Need, error) {
		return oltp.RunNeed(what, ef.sessions, d, external), nil
	}); err != nil {
		return nil, err
	}
	ef.results = []string{oltp.ResultFile, oltp.IntervalsFile}
	return openLoaded(ctx, ef, out)
}

// runOutput is a run's result file, for finishRun.
type runOutput struct {
	path string
	// started is the result's "started" member, which tells this run's file from
	// another's.
	started any
	// write writes the result with its storage section (nil: none); summary prints it.
	write   func(*result.Storage) error
	summary func()
}

// finishRun ends a run of tpcc, oltp or tpch when it returned a result (hasResult):
// it closes the engine and unmounts its tiers (in that order), writes the result a
// last time with the storage section, prints the summary and where the result is,
// and words the error so that users know what was kept: only what the file really
// holds. Without a result it closes and returns the errors.
func finishRun(w io.Writer, opened *openedEngine, out runOutput, hasResult bool, runErr error) error {
	storage, ferr := opened.Finish() // the engine stops before its devices unmount
	err := errors.Join(runErr, ferr)
	if !hasResult {
		return err
	}
	werr := out.write(storage)
	out.summary()
	kept, where := "what was measured is kept in "+out.path, true
	if werr != nil {
		err = errors.Join(err, werr)
		if holds, _ := metrics.FileHolds(out.path, "started", out.started); holds {
			kept = out.path + " holds what was measured until the last write that succeeded"
		} else {
			kept, where = "nothing of this run could be written to "+out.path+": the summary above is all that is left of it", false
		}
	}
	if where {
		fmt.Fprintf(w, "\nresult: %s\n", out.path)
	}
	err = oneLine(err)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("interrupted: %s: %w", kept, err)
	}
	return fmt.Errorf("%w (%s)", err, kept)
}

// lineErrors are errors on one line, as errors.Join would hold them on several.
type lineErrors []error

func (e lineErrors) Error() string {
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (e lineErrors) Unwrap() []error { return e }

// oneLine puts the errors err joins (errors.Join) on one line, each message once: a
// full disk fails the run's last save and finishRun's write alike.
func oneLine(err error) error {
	var out lineErrors
	seen := map[string]bool{}
	var flatten func(error)
	flatten = func(err error) {
		if parts := joinedParts(err); parts != nil {
			for _, e := range parts {
				flatten(e)
			}
		} else if err != nil && !seen[err.Error()] {
			seen[err.Error()] = true
			out = append(out, err)
		}
	}
	flatten(err)
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return out
}

// joinedParts are the errors err joins when errors.Join made it (its message is
// theirs, one a line), nil otherwise: an error of fmt.Errorf with several %w has
// words of its own, which flattening would lose.
func joinedParts(err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return nil
	}
	parts := j.Unwrap()
	msgs := make([]string, 0, len(parts))
	for _, p := range parts {
		msgs = append(msgs, p.Error())
	}
	if err.Error() != strings.Join(msgs, "\n") {
		return nil
	}
	return parts
}

func newTPCCRunCommand() *cobra.Command {
	var (
		ef      engineFlags
		lf      loadFlags
		out     string
		mixText string
		think   bool
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the TPC-C mix with virtual users and report NOPM, TPM and latencies",
		Example: `  tierbench tpcc run --users 4 --ramp 10s --duration 1m --out runs/tpcc-sqlite
  tierbench tpcc run --engine postgres --users 1,2,4,8,16 --duration 2m --out runs/tpcc-pg
  tierbench tpcc run --engine mysql --rate 200 --users 16 --duration 5m --out runs/tpcc-my`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := lf.parse(); err != nil {
				return err
			}
			if lf.rate > 0 && think {
				return fmt.Errorf("--rate and --think are exclusive: an open loop sets its own schedule")
			}
			mix, err := tpcc.ParseMix(mixText)
			if err != nil {
				return fmt.Errorf("--%w", err)
			}
			li, err := tpcc.ReadLoadInfo(out)
			if err != nil {
				return err
			}
			if err := ef.matchLoaded(cmd, out, tpcc.LoadInfoFile, loadedEngine(li)); err != nil {
				return err
			}
			if li == nil {
				if err := ef.needLoad(out, tpcc.LoadInfoFile, "tpcc load"); err != nil {
					return err
				}
			}
			ctx := cmd.Context()
			opened, err := lf.open(ctx, cmd, &ef, out)
			if err != nil {
				return err
			}
			defer opened.Close()
			rc := tpcc.RunConfig{Plan: lf.plan(out, cmd.OutOrStdout(), opened), Think: think, Mix: mix}
			if li != nil {
				rc.Load = li.Constants // the warehouses are counted in the database
			}
			res, err := tpcc.Run(ctx, opened.Engine(), rc)
			if res == nil {
				return finishRun(nil, opened, runOutput{}, false, err)
			}
			return finishRun(cmd.OutOrStdout(), opened, runOutput{
				path: filepath.Join(out, tpcc.ResultFile), started: res.Started,
				write:   func(st *result.Storage) error { res.Storage = st; return tpcc.WriteResult(out, res) },
				summary: func() { tpcc.WriteSummary(cmd.OutOrStdout(), res) },
			}, true, err)
		},
	}
	registerTPCCEngineFlags(cmd, &ef, &out)
	f := cmd.Flags()
	lf.register(cmd, "seed of the users' inputs")
	f.BoolVar(&think, "think", false, "keying and think times of clause 5.2.5.7 (18 s + 12 s for a New-Order; needs about 10 users per warehouse)")
	f.StringVar(&mixText, "mix", "default", "transaction deck: default (45/43/4/4/4 of 100) or spec23 (10/10/1/1/1 of 23, clause 5.2.4.2)")
	return cmd
}

func newTPCCCheckCommand() *cobra.Command {
	var (
		ef  engineFlags
		out string
	)
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Check the twelve consistency conditions of clause 3.3.2 (exit status 3 when one fails)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			li, err := tpcc.ReadLoadInfo(out)
			if err != nil {
				return err
			}
			if err := ef.matchLoaded(cmd, out, tpcc.LoadInfoFile, loadedEngine(li)); err != nil {
				return err
			}
			if li == nil {
				if err := ef.needLoad(out, tpcc.LoadInfoFile, "tpcc load"); err != nil {
					return err
				}
			}
			ctx := cmd.Context()
			ef.results = []string{checkFile}
			opened, err := openLoaded(ctx, &ef, out)
			if err != nil {
				return err
			}
			defer opened.Close()
			cs, err := tpcc.Check(ctx, opened.Engine())
			tpcc.WriteCheck(cmd.OutOrStdout(), cs)
			if err != nil {
				return err
			}
			if werr := metrics.WriteJSONFile(filepath.Join(out, checkFile), map[string]any{
				"passed": tpcc.AllPassed(cs), "conditions": cs, "checked": time.Now().UTC(),
			}); werr != nil {
				return werr
			}
			if _, err := opened.Finish(); err != nil { // check.json has no storage section
				return err
			}
			if !tpcc.AllPassed(cs) {
				return &exitError{code: exitCheckFailed, err: errors.New("consistency check failed: see the conditions marked FAIL above")}
			}
			fmt.Fprintln(cmd.OutOrStdout(), "all 12 consistency conditions pass")
			return nil
		},
	}
	registerTPCCEngineFlags(cmd, &ef, &out)
	return cmd
}

// finishWithStorage closes the engine, unmounts its tiers and, when something was
// placed, prints the storage section and writes it to OUT/file.
func finishWithStorage(cmd *cobra.Command, opened *openedEngine, out, file string) error {
	storage, err := opened.Finish()
	if storage != nil {
		storage.WriteSummary(cmd.OutOrStdout())
		if werr := metrics.WriteJSONFile(filepath.Join(out, file), storage); werr != nil {
			err = errors.Join(err, werr)
		}
	}
	return err
}

// matchLoaded makes run and check open the engine that out's data was loaded into
// (loaded, from loadFile; nil when out has no load): without --engine they use it,
// with a note; a different --engine is an error, not a new, empty database beside the
// loaded one. A load on an external server needs --dsn again (tierbench keeps no
// DSN). Nothing is checked with --dsn or --db, which name the database themselves.
func (ef *engineFlags) matchLoaded(cmd *cobra.Command, out, loadFile string, loaded *engine.Info) error {
	if loaded == nil || ef.dsn != "" || ef.dbDir != "" {
		return nil
	}
	where := filepath.Join(out, loadFile)
	if loaded.Mode == engine.External {
		return fmt.Errorf("%s: the data was loaded into an external %s server: give --engine %s --dsn DSN (tierbench keeps no DSN)", where, loaded.Name, loaded.Name)
	}
	if strings.EqualFold(ef.name, loaded.Name) {
		return nil
	}
	if cmd.Flags().Changed("engine") {
		return fmt.Errorf("--engine %s: %s holds data loaded into %s (%s): give --engine %s, or load again with --engine %s", ef.name, out, loaded.Name, where, loaded.Name, ef.name)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "note: using --engine %s, which %s was loaded into (%s)\n", loaded.Name, out, where)
	ef.name = loaded.Name
	return nil
}

// loadedEngine is the engine of a TPC-C load, nil for none.
func loadedEngine(li *tpcc.LoadInfo) *engine.Info {
	if li == nil {
		return nil
	}
	return &li.Engine
}
