package tpch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"tierbench/internal/capacity"
	"tierbench/internal/engine"
	"tierbench/internal/workload/tpch/dbgen"
	"tierbench/internal/workload/tpch/qgen"
)

// MaxUpdateSets is the last update set that refreshes a loaded database, at every SF
// (dbgen.MaxUpdateSet): dbgen's RF2 keys for set n carry the sequence n/1000 (its
// MK_SPARSE), so sets 1..999 delete base orders, and from set 1000 on every delete
// would name an order that no load and no earlier set inserted (dbgen refuses them).
// Runs on one database (a load, then --skip-load runs) therefore have 999 sets
// between them.
const MaxUpdateSets = 999

// MaxStreams is the most query streams a run on a fresh load can have: its power test
// takes update set 1 and its throughput test sets 2..S+1.
const MaxStreams = MaxUpdateSets - 1

// CheckSeeds refuses a power test seed that cannot seed qgen for one of a run's
// streams (seed + s, s = 0..streams; Clause 2.1.3.3), so a run stops before its load
// rather than after. 0 stands for the end-of-load timestamp, which always can; with
// useDefault no seed is used. The error begins with "seed N".
func CheckSeeds(seed int64, streams int, useDefault bool) error {
	if seed == 0 || useDefault {
		return nil
	}
	var se *qgen.SeedError
	if err := qgen.CheckSeed(seed); errors.As(err, &se) {
		return fmt.Errorf("seed %d is %s: give a seed from 1 to %d, such as the end-of-load timestamp mmddhhmmss", seed, se.Reason, qgen.MaxSeed-int64(streams))
	}
	for s := 1; s <= streams; s++ {
		if err := qgen.CheckSeed(qgen.StreamSeed(seed, s)); errors.As(err, &se) {
			return fmt.Errorf("seed %d with %d query streams: stream %d would use seed %d (the seed + %d), %s: give a seed of at most %d (every mmddhhmmss timestamp is)",
				seed, streams, s, se.Seed, s, se.Reason, qgen.MaxSeed-int64(streams))
		}
	}
	return nil
}

// needs estimates what a run of cfg with streams query streams takes on this host,
// for an engine with dialect d in mode: the first Need is memory (the generator, the
// sessions, update sets held in memory) and the database's disk; a second one, when
// the throughput test's update sets are too big for memory, their files' disk.
// An external server's memory and disk are not this host's to check.
func (cfg RunConfig) needs(d *engine.Dialect, mode engine.Mode, streams int) []capacity.Need {
	what := fmt.Sprintf("tpch run --sf %s --streams %d", formatSF(cfg.SF), streams)
	main := capacity.Need{What: what, Memory: dbgen.MemoryBytes}
	basis := []string{fmt.Sprintf("the generator %s", capacity.Bytes(dbgen.MemoryBytes))}
	dbBasis := ""
	if mode != engine.External {
		// The throughput test holds S query sessions and the refresh session at once.
		session := d.Footprint.TPCHSessionBytes
		if d.Footprint.BufferPerSession {
			session += float64(cfg.BufferBytes)
		}
		main.Memory += float64(streams+1) * session
		basis = append(basis, fmt.Sprintf("%d sessions of %s", streams+1, capacity.Bytes(session)))
		if !cfg.SkipLoad && cfg.DatabaseDir != "" && d.Footprint.TPCHBytesPerSF > 0 {
			main.Disk, main.DiskDir = d.Footprint.TPCHBytesPerSF*cfg.SF, cfg.DatabaseDir
			dbBasis = fmt.Sprintf("a %s database of %s per SF", d.Name, capacity.Bytes(d.Footprint.TPCHBytesPerSF))
			basis = append(basis, dbBasis)
		}
	}
	// The throughput test generates its S update sets before it starts (the power
	// test's one set is gone by then).
	sets := dbgen.UpdateSetBytes(cfg.SF) * float64(streams)
	setBasis := fmt.Sprintf("%d update sets of %s", streams, capacity.Bytes(dbgen.UpdateSetBytes(cfg.SF)))
	if sets <= updateSetMemory {
		main.Memory += sets
		main.Basis = strings.Join(append(basis, setBasis), ", ")
		return []capacity.Need{main}
	}
	main.Basis = strings.Join(basis, ", ")
	spill := capacity.Need{What: what, Disk: sets, DiskDir: updateSetDir(cfg.OutDir), Basis: setBasis + " in files"}
	if main.Disk > 0 && within(main.DiskDir, spill.DiskDir) {
		// The default layout: the database in OUT/db, beside the update sets.
		spill.Disk += main.Disk
		spill.Basis = dbBasis + " and " + spill.Basis
	}
	return []capacity.Need{main, spill}
}

// updateSetDir is where prepareUpdateSets writes update sets too big for memory.
func updateSetDir(out string) string {
	if out == "" {
		return os.TempDir()
	}
	return out
}

// within reports whether path lies in dir (both as given, made absolute).
func within(path, dir string) bool {
	p, err1 := filepath.Abs(path)
	d, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// checkCapacity refuses a run whose estimate exceeds this host's memory or disk,
// unless cfg.IgnoreLimits.
func (r *runner) checkCapacity() error {
	for _, need := range r.cfg.needs(r.d, r.info.Mode, r.streams) {
		if err := capacity.Check(need, r.cfg.IgnoreLimits); err != nil {
			return err
		}
	}
	return nil
}

// checkSessions opens the sessions the throughput test will hold at once (its S query
// streams and the refresh stream) and closes them again, before anything is loaded:
// a server that allows fewer connections (an external one's max_connections) then
// stops the run at once instead of after the load and the power test.
func (r *runner) checkSessions(ctx context.Context) error {
	want := r.streams + 1
	sessions := make([]engine.Session, 0, want)
	defer func() {
		for _, s := range sessions {
			s.Close()
		}
	}()
	for len(sessions) < want {
		s, err := r.eng.Session(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%d query streams need %d sessions at once (the streams and the refresh stream), but the engine refused session %d: %w: run fewer streams, or let the server accept more connections",
				r.streams, want, len(sessions)+1, err)
		}
		sessions = append(sessions, s)
	}
	return nil
}

// checkUpdateSets refuses a run on an earlier load (SkipLoad) that would need update
// sets past MaxUpdateSets: the power test's one and the throughput test's S, from the
// database's next set on. (A fresh load has them: check limits S to MaxStreams.)
func (r *runner) checkUpdateSets(ctx context.Context) error {
	next, err := r.state.nextUpdateSet(ctx)
	if err != nil {
		return err
	}
	last := next + r.streams // 1 for the power test, S for the throughput test
	if last <= MaxUpdateSets {
		return nil
	}
	return fmt.Errorf("earlier runs used update sets 1..%d of this database, and %d streams need sets up to %d; a database has %d (dbgen's deletes from set %d on match no order): load again, or run at most %d streams",
		next-1, r.streams, last, MaxUpdateSets, MaxUpdateSets+1, max(0, MaxUpdateSets-next))
}
