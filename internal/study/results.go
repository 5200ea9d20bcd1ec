package study

import (
	"errors"
	"fmt"

	"tierbench/internal/result"
)

// Results are the runs of one study, read from its directories: one, or the
// directories of its shards, merged.
type Results struct {
	Record *Record
	Dirs   []string
	// Runs are the runs recorded for the study's cells, by cell and repetition;
	// interrupted runs and runs of an earlier version of a cell are left out.
	Runs map[runKey]*RunRecord
	// Notes say what the merge left out, and which cells have no baseline.
	Notes []string
}

// Load reads the study in dirs. Directories of different studies (another file,
// another size, a changed cell) are refused in one line: a report would mix them.
func Load(dirs ...string) (*Results, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("give the directory of a study (its --out), or the directories of its shards")
	}
	res := &Results{Runs: map[runKey]*RunRecord{}}
	for _, dir := range dirs {
		rec, err := ReadRecord(dir)
		var d *DamagedError
		if errors.As(err, &d) {
			return nil, fmt.Errorf("%w: run `tierbench study run` with the study's file (and its --size) and --out %s to write it again; the finished runs are kept, and not run again", err, dir)
		}
		if err != nil {
			return nil, err
		}
		if res.Record == nil {
			res.Record = rec
		} else if first := res.Record; rec.Fingerprint != first.Fingerprint {
			return nil, fmt.Errorf("%s holds study %s (%s, fingerprint %s) and %s holds study %s (%s, fingerprint %s): give the directories of one study, the shards of one file at one size",
				dirs[0], first.Name, sizeName(first.Size), first.Fingerprint, dir, rec.Name, sizeName(rec.Size), rec.Fingerprint)
		}
		res.Dirs = append(res.Dirs, dir)
		runs, damaged, err := readRuns(dir)
		if err != nil {
			return nil, err
		}
		for _, d := range damaged {
			res.Notes = append(res.Notes, fmt.Sprintf("%v: that run is left out; `tierbench study run` with the study's file and this directory as --out runs it again", d))
		}
		beyond := 0
		for k, r := range runs {
			c := res.Record.Cell(r.Cell)
			switch {
			case r.Status == result.StatusInterrupted:
				continue
			case k.rep > res.Record.Repetitions:
				// Run when the study had more repetitions: the statistics are of
				// the repetitions the study has, as its plan says.
				beyond++
				continue
			case c == nil || c.Fingerprint != r.Fingerprint:
				res.Notes = append(res.Notes, fmt.Sprintf("%s ran an earlier version of cell %s: left out", r.Dir, r.Cell))
				continue
			}
			if had, dup := res.Runs[k]; dup {
				if had.Status == result.StatusOK || r.Status != result.StatusOK {
					r = had
				}
				res.Notes = append(res.Notes, fmt.Sprintf("repetition %d of cell %s was run in two directories: the report uses %s", k.rep, k.cell, r.Dir))
			}
			res.Runs[k] = r
		}
		if beyond > 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("%s holds %d runs of repetitions beyond the study's %d (it ran with more): left out; run the study with repetitions: %d or more to use them",
				dir, beyond, res.Record.Repetitions, res.Record.Repetitions+1))
		}
	}
	if n := unbased(res.Record.Cells, res.Record.Baseline); n != "" {
		res.Notes = append(res.Notes, n)
	}
	return res, nil
}

// CellRuns are a cell's recorded runs, by repetition.
func (res *Results) CellRuns(id string) []*RunRecord {
	last := 0
	for k := range res.Runs {
		last = max(last, k.rep)
	}
	var out []*RunRecord
	for rep := 1; rep <= last; rep++ {
		if r, ok := res.Runs[runKey{id, rep}]; ok {
			out = append(out, r)
		}
	}
	return out
}
