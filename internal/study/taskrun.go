package study

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"tierbench/internal/lifecycle"
	"tierbench/internal/metrics"
	"tierbench/internal/result"
)

// runTasks makes the runs of the tasks r.Tasks names, one after the other, in OUT,
// which other tasks of the study may share (on shared storage, from other machines):
// it locks each run, not OUT; it writes study.json only when OUT has none; it writes
// no report (`study report OUT` does, once every task has run). A task whose run
// finished ok is not run again, nor one that failed for a cause of its own (unless
// RetryFailed); one interrupted, or failed for a reason of the moment (Transient),
// is. With dryRun it validates the tasks' cells and prints their commands.
func (r *Runner) runTasks(ctx context.Context, dryRun bool) (*Tally, error) {
	ts := r.tasks()
	tr := *r.Tasks
	if tr.Last >= len(ts.List) {
		return nil, taskRangeError(r.Plan, tr)
	}
	out, err := filepath.Abs(r.Out)
	if err != nil {
		return nil, fmt.Errorf("--out %s: %w", r.Out, err)
	}
	if err := checkOut(out, writesStudy, r.Plan.Study.File.Name, r.Plan.Fingerprint, nil); err != nil {
		return nil, err
	}
	held, notes, err := r.heldStudy(out)
	if err != nil {
		return nil, err
	}
	todo := ts.List[tr.First : tr.Last+1]
	r.writeTaskHeader(out, ts, tr, notes)
	var cells []*Cell
	for _, t := range todo {
		if !slices.Contains(cells, t.Cell) {
			cells = append(cells, t.Cell)
		}
	}
	if err := r.Plan.validateCells(ctx, out, cells); err != nil {
		return nil, err
	}
	fmt.Fprintf(r.Stdout, "validated %s\n", plural(len(cells), "cell"))
	if dryRun {
		for _, t := range todo {
			fmt.Fprintf(r.Stdout, "  task %d: %s rep %d\n", t.Index, t.Cell.ID, t.Rep)
			lines, err := lifecycle.CommandArgs(t.Cell.Spec(RunDir(out, t.Cell.ID, t.Rep)))
			if err != nil {
				return nil, fmt.Errorf("cell %s: %w", t.Cell.ID, err)
			}
			for _, args := range lines {
				fmt.Fprintf(r.Stdout, "    tierbench %s\n", lifecycle.CommandLine(args))
			}
		}
		return &Tally{Runs: len(todo)}, nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("--out %s: %w", out, err)
	}
	if held == nil {
		// Tasks starting together may each write it: the same study, atomically.
		if err := metrics.WriteJSONFile(filepath.Join(out, RecordFile), r.Plan.Record(All)); err != nil {
			return nil, err
		}
	}
	tally := &Tally{Runs: len(todo)}
	for _, t := range todo {
		if ctx.Err() != nil {
			tally.Interrupted = true
			break
		}
		prev, err := readJSON[RunRecord](filepath.Join(RunDir(out, t.Cell.ID, t.Rep), RunFile))
		var damaged *DamagedError
		switch {
		case errors.As(err, &damaged):
			r.say(fmt.Sprintf("note: %v: the run counts as not run, and runs again", damaged))
		case err != nil:
			return tally, err
		case prev != nil && prev.Format > runFormat:
			return tally, &FormatError{Path: filepath.Join(RunDir(out, t.Cell.ID, t.Rep), RunFile), Found: prev.Format, Want: runFormat, By: buildOf(prev.Host)}
		case prev != nil && prev.Fingerprint == t.Cell.Fingerprint && prev.Status == result.StatusOK:
			tally.Finished++
			r.say(fmt.Sprintf("[task %d] %s rep %d: finished before (%s), kept", t.Index, t.Cell.ID, t.Rep, runLine(prev)))
			continue
		case prev != nil && prev.Fingerprint == t.Cell.Fingerprint && prev.Status == result.StatusFailed && !prev.Transient && !r.RetryFailed:
			tally.KeptFailed++
			tally.Failures = append(tally.Failures, failureLine(t.RunRef, prev.Error))
			r.say(fmt.Sprintf("[task %d] %s rep %d: failed before (%s), kept as recorded (--retry-failed runs it again)", t.Index, t.Cell.ID, t.Rep, prev.Error))
			continue
		}
		rec, err := r.runOne(ctx, out, t.RunRef)
		if err != nil {
			return tally, err
		}
		r.say(fmt.Sprintf("[task %d] %s rep %d: %s", t.Index, t.Cell.ID, t.Rep, runLine(rec)))
		tally.count(t.RunRef, rec)
		if tally.Interrupted {
			break
		}
	}
	return tally, nil
}

// heldStudy reads the study OUT holds: nil when it holds none (or its study.json is
// damaged: notes say so, and it is written again). A study other than the plan's
// (another file, another size, a changed cell) is refused: the tasks of one array
// job must be of one study, and the index of a task names a run of one study only.
func (r *Runner) heldStudy(out string) (*Record, []string, error) {
	if _, err := os.Stat(filepath.Join(out, RecordFile)); err != nil {
		return nil, nil, nil
	}
	rec, err := ReadRecord(out)
	var d *DamagedError
	switch {
	case errors.As(err, &d):
		return nil, []string{fmt.Sprintf("%v: it is written again from %s", d, r.Plan.Study.File.Path)}, nil
	case err != nil:
		return nil, nil, err
	case !sameTasks(rec, r.Plan.Record(All)):
		return nil, nil, &AnotherStudyError{Out: out, Held: rec, Given: r.Plan.Record(All)}
	case rec.Shard != "":
		return nil, nil, &UsageError{Err: fmt.Errorf("--out %s was run as shard %s of the study: tasks go into a directory of their own, or one that every task of the study shares; nothing was run", out, rec.Shard)}
	}
	return rec, nil, nil
}

// writeTaskHeader says which study and which tasks this command runs.
func (r *Runner) writeTaskHeader(out string, ts *Tasks, tr TaskRange, notes []string) {
	s := r.Plan.Study
	where := s.File.Path
	if s.Size != "" {
		where += ", size " + s.Size
	}
	what := fmt.Sprintf("task %d of %d (tasks 0 to %d)", tr.First, len(ts.List), len(ts.List)-1)
	if tr.First != tr.Last {
		what = fmt.Sprintf("tasks %d to %d of %d", tr.First, tr.Last, len(ts.List))
	}
	fmt.Fprintf(r.Stdout, "study %s (%s): %s\n", s.File.Name, where, what)
	item := func(key, format string, args ...any) {
		fmt.Fprintf(r.Stdout, "  %-10s %s\n", key, fmt.Sprintf(format, args...))
	}
	for b := ts.List[tr.First].Block; b <= ts.List[tr.Last].Block; b++ {
		blk := ts.Blocks[b]
		item("block", "%d (tasks %d-%d): %s", blk.Index, blk.First, blk.Last, ts.Describe(blk))
	}
	if s.Timeout > 0 {
		item("timeout", "%s a run", s.Timeout)
	}
	item("out", "%s (the report, once every task has run: tierbench study report %s)", out, out)
	for _, n := range notes {
		item("note", "%s", n)
	}
}

// taskRangeError refuses a task index beyond the study's tasks, saying how many the
// study has at each of its sizes: an index counted at another size is the likely
// mistake.
func taskRangeError(p *Plan, tr TaskRange) error {
	n := len(p.Tasks().List)
	flag := "--task " + tr.String()
	if tr.First != tr.Last {
		flag = "--tasks " + tr.String()
	}
	size := ""
	if p.Study.Size != "" {
		size = " --size " + p.Study.Size
	}
	msg := fmt.Sprintf("%s: study %s at %s has %d tasks, 0 to %d (`tierbench study tasks %s%s` lists them)",
		flag, p.Study.File.Name, sizeName(p.Study.Size), n, n-1, p.Study.File.Path, size)
	var others []string
	for _, name := range append([]string{""}, p.Study.File.SizeNames()...) {
		if name == p.Study.Size {
			continue
		}
		st, err := p.Study.File.At(name)
		if err != nil {
			continue
		}
		if op, err := Expand(st); err == nil && len(op.Cells)*op.Study.Repetitions > tr.Last {
			others = append(others, fmt.Sprintf("%s %d", sizeName(name), len(op.Cells)*op.Study.Repetitions))
		}
	}
	if len(others) > 0 {
		msg += fmt.Sprintf(", while it has more at %s: was the index counted at another size?", joinAnd(others))
	}
	return &UsageError{Err: fmt.Errorf("nothing was run: %s", msg)}
}

func joinAnd(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}
