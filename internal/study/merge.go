package study

import (
	"fmt"
	"strconv"
	"strings"

	"tierbench/internal/result"
)

// givenOnce refuses a directory given twice to a merge: its runs would count twice.
func givenOnce(dirs []string) error {
	for i := range dirs {
		for j := range i {
			if sameDir(dirs[i], dirs[j]) {
				return &UsageError{Err: fmt.Errorf("%s is given twice (as %s and %s): give each directory once", dirs[i], dirs[j], dirs[i])}
			}
		}
	}
	return nil
}

// shardOf is how a directory of a merge split the study.
type shardOf struct {
	dir      string
	shard    string
	blocking Blocking
}

// shardN is N of a recorded shard "K/N".
func shardN(s string) int {
	_, n, _ := strings.Cut(s, "/")
	v, _ := strconv.Atoi(n)
	return v
}

// sameSplit adds a directory's split to those of the merge so far, and refuses
// shards of different splits (another N, or another --blocking): their runs overlap
// or leave gaps, and no note could say which count.
func sameSplit(seen []shardOf, dir string, rec *Record) ([]shardOf, error) {
	if rec.Shard == "" {
		return seen, nil
	}
	this := shardOf{dir, rec.Shard, rec.Blocking}
	for _, s := range seen {
		if shardN(s.shard) != shardN(this.shard) || s.blocking != this.blocking {
			return nil, &UsageError{Err: fmt.Errorf("%s ran as shard %s (%s) and %s as shard %s (%s): shards of different splits overlap or leave runs out; give the shards of one split (one N, one --blocking), or report each directory on its own",
				s.dir, s.shard, splitName(s.blocking), dir, this.shard, splitName(this.blocking))}
		}
	}
	return append(seen, this), nil
}

func splitName(b Blocking) string {
	switch b {
	case ByHost:
		return "blocked by host"
	case ByRun:
		return "single runs round robin"
	}
	return "whole cells"
}

// keepOne chooses which of two records of one run (cell, repetition), found in two
// directories, the report uses, and says which and why: a run that finished ok over
// one that did not, else the one that finished first (the other repeats a run the
// study had made, and counting both would give the cell a repetition it does not
// have).
func keepOne(k runKey, had, r *RunRecord) (*RunRecord, string) {
	keep, drop, why := had, r, ""
	switch {
	case had.Status == result.StatusOK && r.Status != result.StatusOK:
		why = fmt.Sprintf("it finished ok, the other %s", r.Status)
	case r.Status == result.StatusOK && had.Status != result.StatusOK:
		keep, drop, why = r, had, fmt.Sprintf("it finished ok, the other %s", had.Status)
	case r.Finished.Before(had.Finished):
		keep, drop = r, had
		fallthrough
	default:
		why = fmt.Sprintf("it finished first (%s; the other %s repeats it)", keep.Finished.Format("2006-01-02 15:04:05Z"), drop.Finished.Format("2006-01-02 15:04:05Z"))
	}
	return keep, fmt.Sprintf("repetition %d of cell %s was run in two directories: the report uses %s, not %s: %s",
		k.rep, k.cell, keep.Dir, drop.Dir, why)
}

// MissingTasksError is a report of a study some of whose tasks have not run, without
// --partial: the report is written, and says which.
type MissingTasksError struct {
	Missing []Task
	Total   int
	Dirs    []string
}

func (e *MissingTasksError) Error() string {
	return fmt.Sprintf("%d of the %d tasks have not run (%s): run them (`tierbench study run FILE --out DIR --task I`, each in the directory its study's runs go to) and report again, or give --partial to report the runs there are",
		len(e.Missing), e.Total, missingText(e.Missing, maxNamed))
}

// missingText names up to n tasks: "task 2 (data=hdd-7200,users=1 rep 1), task 5 (...)
// and 3 more".
func missingText(ts []Task, n int) string {
	var parts []string
	for i, t := range ts {
		if i == n {
			return strings.Join(parts, ", ") + fmt.Sprintf(" and %d more", len(ts)-n)
		}
		parts = append(parts, fmt.Sprintf("task %d (%s rep %d)", t.Index, t.Cell.ID, t.Rep))
	}
	return strings.Join(parts, ", ")
}

// everyTask expects a run of every task of the study.
func everyTask(res *Results) []Task { return res.Record.Tasks().List }

// expected are the tasks whose runs a study run's own report expects: those of its
// shard (the other shards' are for the merge).
func (r *Runner) expected() func(*Results) []Task {
	return func(res *Results) []Task {
		var out []Task
		ts := res.Record.Tasks()
		for _, ref := range r.Plan.Runs(r.Shard) {
			if t := ts.Of(ref.Cell.ID, ref.Rep); t != nil {
				out = append(out, *t)
			}
		}
		return out
	}
}

// missingError is a *MissingTasksError for the expected tasks (expect; nil: none)
// that res holds no run of; nil when there are none.
func missingError(res *Results, expect func(*Results) []Task) error {
	if expect == nil {
		return nil
	}
	want := expect(res)
	var missing []Task
	for _, t := range want {
		if _, ok := res.Runs[runKey{t.Cell.ID, t.Rep}]; !ok {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return &MissingTasksError{Missing: missing, Total: len(want), Dirs: res.Dirs}
}
