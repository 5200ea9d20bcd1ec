package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/lifecycle"
	"tierbench/internal/metrics"
	"tierbench/internal/result"
	"tierbench/internal/workload"
)

// SnapshotFile is a snapshot's record in its directory, written once its load ended.
const SnapshotFile = "snapshot.json"

// SnapshotRecord is OUT/snapshots/KEY/snapshot.json: what was loaded, by which
// engine version, where (the directory's absolute path then, which links in the files
// may name), and what its load took.
type SnapshotRecord struct {
	Key           string              `json:"key"`
	Workload      string              `json:"workload"`
	Engine        string              `json:"engine"`
	EngineVersion string              `json:"engine_version"`
	Values        map[string][]string `json:"values"`
	Dir           string              `json:"dir"`
	// LoadFile is the load's record (oltp-load.json), relative to Dir, which the run
	// phase reads; each run gets a copy.
	LoadFile    string  `json:"load_file,omitempty"`
	LoadSeconds float64 `json:"load_s"`
	// MadeFor is the run whose turn made it: CELL rep N.
	MadeFor string    `json:"made_for"`
	Made    time.Time `json:"made"`
}

// LoadReuse is how a run got its population from a snapshot: cell.json's load.
type LoadReuse struct {
	// Snapshot is the snapshot's directory, relative to the study's.
	Snapshot string `json:"snapshot"`
	// Made says this run's turn made the snapshot (its load ran first, on null
	// devices); LoadSeconds is what that load took, CopySeconds what the copy into
	// this run took. Neither is in the run's measurements.
	Made          bool    `json:"made"`
	LoadSeconds   float64 `json:"load_s"`
	CopySeconds   float64 `json:"copy_s"`
	Bytes         int64   `json:"bytes"`
	Files         int     `json:"files"`
	Engine        string  `json:"engine"`
	EngineVersion string  `json:"engine_version,omitempty"`
	// Replaced says why a snapshot found in the directory was not used (another
	// engine version, other values) and the population was loaded again.
	Replaced string `json:"replaced,omitempty"`
}

// snapshotDir is the directory of a population's snapshot in the study directory out.
func snapshotDir(out, key string) string { return filepath.Join(out, SnapshotsDir, key) }

// loadFromSnapshot gives the run in dir its cell's population: from the snapshot in
// out when one of this engine version and these values is there, else from a new
// one, loaded now on null devices (in the run's time, under its timeout); then it
// copies the snapshot's files onto the run's tiers, before any command of the run
// starts. A load that does not end ok is returned as the phase record that failed.
func (r *Runner) loadFromSnapshot(ctx, runCtx context.Context, out, dir string, ref RunRef, pop *Population, stdout, stderr *os.File) (*LoadReuse, *PhaseRecord) {
	sdir := snapshotDir(out, pop.Key)
	use := &LoadReuse{Snapshot: filepath.Join(SnapshotsDir, pop.Key), Engine: pop.Engine}
	failed := func(why string) *PhaseRecord {
		status := result.StatusFailed
		if ctx.Err() != nil {
			status = result.StatusInterrupted
		}
		return &PhaseRecord{Phase: workload.Load, Status: status, Why: "snapshot " + use.Snapshot + ": " + why}
	}
	version, err := engine.InstalledVersion(pop.Engine)
	if err != nil {
		return use, failed(err.Error())
	}
	use.EngineVersion = version
	rec, err := readJSON[SnapshotRecord](filepath.Join(sdir, SnapshotFile))
	switch {
	case err != nil:
		use.Replaced = fmt.Sprintf("its record does not read (%v)", oneLine(err))
		rec = nil
	case rec == nil:
	default:
		use.Replaced = rec.unlike(pop, version)
		if use.Replaced != "" {
			rec = nil
		}
	}
	if rec == nil {
		var pr *PhaseRecord
		rec, pr = r.makeSnapshot(ctx, runCtx, sdir, ref, pop, version, stdout)
		if pr != nil {
			if use.Replaced != "" {
				pr.Why += " (loaded again: " + use.Replaced + ")"
			}
			return use, pr
		}
		use.Made = true
	}
	use.LoadSeconds = rec.LoadSeconds
	begin := time.Now()
	n, files, err := copySnapshot(rec, sdir, dir)
	if err != nil {
		return use, failed(fmt.Sprintf("copying it into the run: %v", err))
	}
	use.CopySeconds, use.Bytes, use.Files = time.Since(begin).Seconds(), n, files
	verb := "reused"
	if use.Made {
		verb = "made"
	}
	note := fmt.Sprintf("snapshot: the population of %s (%s) %s: %d files, %.1f MB copied onto the run's tiers in %.1f s before its first command (its load took %.1f s on null devices, in %s)\n",
		use.Snapshot, version, verb, files, float64(n)/1e6, use.CopySeconds, rec.LoadSeconds, sdir)
	io.WriteString(stdout, note)
	io.WriteString(stderr, note)
	return use, nil
}

// unlike says why a snapshot's record does not serve pop on engine version version
// ("" when it does): a snapshot is reused only by the engine version that loaded
// it, with the values it was loaded with.
func (rec *SnapshotRecord) unlike(pop *Population, version string) string {
	switch {
	case rec.Engine != pop.Engine:
		return fmt.Sprintf("it was loaded into %s, the cells run %s", rec.Engine, pop.Engine)
	case rec.EngineVersion != version:
		return fmt.Sprintf("it was loaded into %s %q, this host runs %q", rec.Engine, rec.EngineVersion, version)
	}
	for _, k := range slices.Sorted(maps.Keys(pop.Values)) {
		if !slices.Equal(rec.Values[k], pop.Values[k]) && !slices.Contains(keyIgnored, k) {
			return fmt.Sprintf("its load's --%s was %s, the cells' is %s", k, strings.Join(rec.Values[k], ","), strings.Join(pop.Values[k], ","))
		}
	}
	return ""
}

// makeSnapshot loads pop into sdir, with every emulated tier on the null device, as
// the tierbench command a user would type, and records it; the phase record says how
// a load that did not end ok ended.
func (r *Runner) makeSnapshot(ctx, runCtx context.Context, sdir string, ref RunRef, pop *Population, version string, stdout io.Writer) (*SnapshotRecord, *PhaseRecord) {
	fail := func(why string) *PhaseRecord {
		return &PhaseRecord{Phase: workload.Load, Status: result.StatusFailed, Why: "snapshot " + filepath.Join(SnapshotsDir, pop.Key) + ": " + why}
	}
	if err := os.RemoveAll(sdir); err != nil {
		return nil, fail(err.Error())
	}
	if err := os.MkdirAll(sdir, 0o755); err != nil {
		return nil, fail(err.Error())
	}
	values := maps.Clone(pop.Values)
	values["out"] = []string{sdir}
	lines, err := lifecycle.CommandArgs(lifecycle.Spec{Workload: pop.Workload, Phases: []workload.Phase{workload.Load}, Values: values})
	if err != nil {
		return nil, fail(err.Error())
	}
	sout, err := os.OpenFile(filepath.Join(sdir, StdoutFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fail(err.Error())
	}
	defer sout.Close()
	serr, err := os.OpenFile(filepath.Join(sdir, StderrFile), os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fail(err.Error())
	}
	defer serr.Close()
	fmt.Fprintf(stdout, "snapshot: loading the population into %s (its commands and output are there)\n", sdir)
	pr := r.runPhase(ctx, runCtx, sdir, workload.Load, lines[0], sout, serr)
	if pr.Status != result.StatusOK {
		pr.Why = "snapshot " + filepath.Join(SnapshotsDir, pop.Key) + ": " + pr.Why
		os.RemoveAll(filepath.Join(sdir, "tiers"))
		os.RemoveAll(filepath.Join(sdir, "db"))
		return nil, &pr
	}
	rec := &SnapshotRecord{Key: pop.Key, Workload: pop.Workload, Engine: pop.Engine, EngineVersion: version, Values: pop.Values,
		Dir: sdir, LoadFile: pr.File, LoadSeconds: pr.Seconds, MadeFor: fmt.Sprintf("%s rep %d", ref.Cell.ID, ref.Rep), Made: time.Now().UTC()}
	if err := metrics.WriteJSONFile(filepath.Join(sdir, SnapshotFile), rec); err != nil {
		return nil, fail(err.Error())
	}
	return rec, nil
}

// copySnapshot copies a snapshot's database into the run directory dir, where the
// run's commands will find it as a load in dir would have left it: each tier's
// backing files (OUT/tiers/NAME/backing), the database outside tiers (OUT/db), and
// the load's record. Links that name the snapshot's directory name dir instead.
func copySnapshot(rec *SnapshotRecord, sdir, dir string) (int64, int, error) {
	var total int64
	var files int
	add := func(n int64, f int, err error) error {
		total += n
		files += f
		return err
	}
	tiers, err := os.ReadDir(filepath.Join(sdir, "tiers"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, 0, err
	}
	for _, t := range tiers {
		src := filepath.Join(sdir, "tiers", t.Name(), "backing")
		if _, err := os.Stat(src); errors.Is(err, os.ErrNotExist) {
			continue
		}
		// as placement makes a tier's root: 0755, for a server running as its own user
		root := filepath.Join(dir, "tiers", t.Name())
		if err := os.MkdirAll(root, 0o755); err != nil {
			return total, files, err
		}
		if err := add(copyTree(src, filepath.Join(root, "backing"), rec.Dir, dir)); err != nil {
			return total, files, err
		}
	}
	if _, err := os.Stat(filepath.Join(sdir, "db")); err == nil {
		if err := add(copyTree(filepath.Join(sdir, "db"), filepath.Join(dir, "db"), rec.Dir, dir)); err != nil {
			return total, files, err
		}
	}
	if rec.LoadFile != "" {
		if err := add(copyTree(filepath.Join(sdir, rec.LoadFile), filepath.Join(dir, rec.LoadFile), rec.Dir, dir)); err != nil {
			return total, files, err
		}
	}
	return total, files, nil
}

// dropSnapshots removes the plan's snapshots from out once every run of the study
// has finished ok: a snapshot is as large as its database. A study with runs to make
// or failed runs keeps them, for the runs still to come.
func (r *Runner) dropSnapshots(out string, st *status) {
	if len(r.Plan.Populations) == 0 || st.Interrupted || st.Failed+st.KeptFailed > 0 {
		return
	}
	removed := 0
	for _, p := range r.Plan.Populations {
		if p.Refused != "" {
			continue
		}
		d := snapshotDir(out, p.Key)
		if _, err := os.Stat(d); err == nil && os.RemoveAll(d) == nil {
			removed++
		}
	}
	os.Remove(filepath.Join(out, SnapshotsDir)) // when empty
	if removed > 0 {
		r.say(fmt.Sprintf("snapshots: removed %d from %s: every run that uses them has finished", removed, filepath.Join(out, SnapshotsDir)))
	}
}

// writeSnapshotLoads lists, for a dry run, each population's load and the cells
// that share it.
func (r *Runner) writeSnapshotLoads(out string) error {
	byKey := map[string][]string{}
	pops := map[string]*Population{}
	for _, c := range r.Plan.Cells {
		if p := r.Plan.Populations[c.ID]; p != nil && p.Refused == "" {
			byKey[p.Key] = append(byKey[p.Key], c.ID)
			pops[p.Key] = p
		}
	}
	if len(byKey) == 0 {
		return nil
	}
	fmt.Fprintf(r.Stdout, "\nsnapshots (%d), each loaded once (by the first run that needs it) with:\n", len(byKey))
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		p := pops[k]
		values := maps.Clone(p.Values)
		values["out"] = []string{snapshotDir(out, k)}
		lines, err := lifecycle.CommandArgs(lifecycle.Spec{Workload: p.Workload, Phases: []workload.Phase{workload.Load}, Values: values})
		if err != nil {
			return fmt.Errorf("snapshot %s: %w", k, err)
		}
		fmt.Fprintf(r.Stdout, "  %s, for %s\n    tierbench %s\n", k, strings.Join(byKey[k], ", "), lifecycle.CommandLine(lines[0]))
	}
	return nil
}
