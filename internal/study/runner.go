package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"tierbench/internal/lifecycle"
	"tierbench/internal/metrics"
	"tierbench/internal/progress"
	"tierbench/internal/result"
	"tierbench/internal/rundir"
)

// Runner runs a plan's runs in a study directory, each (cell, repetition) in
// OUT/cells/CELL/rep-N as the tierbench commands of its phases, in processes of
// their own: a crash, an OOM kill or a hang of one run never takes the study down,
// the timeout is a signal, and what the command line accepts a study accepts.
type Runner struct {
	Plan *Plan
	Out  string
	// Shard is the share of the cells to run (All: every cell).
	Shard Shard
	// RetryFailed runs failed runs again; otherwise they stay as recorded.
	RetryFailed bool
	// Command makes the process that runs one phase: tierbench with args (nil: this
	// executable).
	Command func(args []string) *exec.Cmd
	// Stdout takes the plan and a line per run; Progress a progress bar (nil: none).
	Stdout, Progress io.Writer
	// KillAfter is how long a run stopped with SIGTERM (timeout, Ctrl-C) has to stop
	// its server and unmount before it is killed (0: 30 s).
	KillAfter time.Duration
	// Lock is the command line the --out lock records.
	Lock string
}

// Tally is what a study run did.
type Tally struct {
	// Runs counts the shard's runs; Finished those that had finished ok before and
	// were skipped; KeptFailed the failed ones kept as they were (no --retry-failed).
	Runs, Finished, KeptFailed int
	// OK and Failed count the runs made now.
	OK, Failed int
	// Beyond counts runs OUT holds of repetitions the study no longer has (it ran
	// with more): kept, and left out of the report.
	Beyond int
	// Failures say which runs failed and why: those kept, then those made now.
	Failures []string
	// Interrupted says the study stopped at Ctrl-C; what finished is kept.
	Interrupted bool
}

// status is what a study directory holds for a plan: the runs recorded and those
// still to run.
type status struct {
	out  string
	rec  *Record
	prev map[runKey]*RunRecord
	todo []RunRef
	// notes say what the directory holds that is damaged, and what becomes of it.
	notes []string
	Tally
}

// inspect reads what out holds of the plan and works out the runs to make; a plan
// that no longer matches runs finished in out is an error (MismatchError).
func (r *Runner) inspect() (*status, error) {
	out, err := filepath.Abs(r.Out)
	if err != nil {
		return nil, fmt.Errorf("--out %s: %w", r.Out, err)
	}
	if err := checkOut(out, writesStudy, r.Plan.Study.File.Name, r.Plan.Fingerprint, nil); err != nil {
		return nil, err
	}
	st := &status{out: out}
	if _, err := os.Stat(filepath.Join(out, RecordFile)); err == nil {
		st.rec, err = ReadRecord(out)
		var d *DamagedError
		switch {
		case errors.As(err, &d):
			// The runs' own records say what they ran; the plan writes it again.
			st.notes = append(st.notes, fmt.Sprintf("%v: it is written again from %s", d, r.Plan.Study.File.Path))
		case err != nil:
			return nil, err
		}
	}
	var damaged []*DamagedError
	if st.prev, damaged, err = readRuns(out); err != nil {
		return nil, err
	}
	for _, d := range damaged {
		st.notes = append(st.notes, fmt.Sprintf("%v: that run counts as not run, and runs again (its files set aside in %s)",
			d, filepath.Join(filepath.Dir(d.Path), rundir.EarlierDir)))
	}
	if err := r.Plan.checkResume(out, st.rec, st.prev); err != nil {
		return nil, err
	}
	if err := r.Plan.checkShard(r.Shard); err != nil {
		return nil, err
	}
	for _, ref := range r.Plan.Runs(r.Shard) {
		st.Runs++
		rec := st.prev[runKey{ref.Cell.ID, ref.Rep}]
		switch {
		case rec == nil || rec.Status == result.StatusInterrupted || rec.Fingerprint != ref.Cell.Fingerprint:
		case rec.Status == result.StatusOK:
			st.Finished++
			continue
		case !r.RetryFailed:
			st.KeptFailed++
			st.Failures = append(st.Failures, fmt.Sprintf("%s rep %d: %s", ref.Cell.ID, ref.Rep, rec.Error))
			continue
		}
		st.todo = append(st.todo, ref)
	}
	for k := range st.prev {
		if k.rep > r.Plan.Study.Repetitions && r.Plan.Cell(k.cell) != nil {
			st.Beyond++
		}
	}
	return st, nil
}

// DryRun prints the plan and every cell with the commands its first repetition
// runs; it validates every cell and runs nothing. It stops when ctx ends.
func (r *Runner) DryRun(ctx context.Context) error {
	st, err := r.inspect()
	if err != nil {
		return err
	}
	writePlan(r.Stdout, r.Plan, r.Shard, st)
	if err := r.Plan.Validate(ctx, st.out); err != nil {
		return err
	}
	fmt.Fprintf(r.Stdout, "\ncells (%d), with the commands of their first repetition:\n", len(r.Plan.Cells))
	for _, c := range r.Plan.Cells {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted while listing the cells' commands: nothing has run: %w", err)
		}
		mark := ""
		if !r.Shard.Has(c.Index) {
			mark = fmt.Sprintf("  (not in shard %s)", r.Shard)
		}
		fmt.Fprintf(r.Stdout, "  %s%s\n", c.ID, mark)
		lines, err := lifecycle.CommandArgs(c.Spec(RunDir(st.out, c.ID, 1)))
		if err != nil {
			return fmt.Errorf("cell %s: %w", c.ID, err)
		}
		for i, args := range lines {
			if pop := r.Plan.Populations[c.ID]; i == 0 && pop != nil && pop.Refused == "" {
				fmt.Fprintf(r.Stdout, "    (the population of %s, copied onto the run's tiers before its commands)\n", filepath.Join(SnapshotsDir, pop.Key))
				continue
			}
			fmt.Fprintf(r.Stdout, "    tierbench %s\n", lifecycle.CommandLine(args))
		}
	}
	return r.writeSnapshotLoads(st.out)
}

// Run prints the plan, validates every cell, locks the study directory, records
// the study in study.json and makes the runs still to make, each recorded in its
// cell.json as it ends: a failed run is recorded with its cause and the study goes
// on; at Ctrl-C (ctx done) the run in progress is stopped and the study ends,
// keeping every finished run. Running it again resumes.
func (r *Runner) Run(ctx context.Context) (*Tally, error) {
	st, err := r.inspect()
	if err != nil {
		return nil, err
	}
	writePlan(r.Stdout, r.Plan, r.Shard, st)
	if err := r.Plan.Validate(ctx, st.out); err != nil {
		return nil, err
	}
	fmt.Fprintf(r.Stdout, "validated %d cells\n", len(r.Plan.Cells))
	if err := rundir.EnsureWritable("--out", st.out); err != nil {
		return nil, err
	}
	lock, err := rundir.Acquire(st.out, r.Lock)
	if err != nil {
		return nil, fmt.Errorf("--out %w", err)
	}
	defer lock.Release()
	if err := metrics.WriteJSONFile(filepath.Join(st.out, RecordFile), r.Plan.Record(r.Shard)); err != nil {
		return nil, err
	}
	if len(st.todo) == 0 {
		if st.KeptFailed > 0 {
			fmt.Fprintf(r.Stdout, "nothing to run: of the %d runs of %s, %d finished ok and %d failed (kept as recorded; --retry-failed runs them again)\n",
				st.Runs, r.shardText(), st.Finished, st.KeptFailed)
		} else {
			fmt.Fprintf(r.Stdout, "nothing to run: every run of %s has finished\n", r.shardText())
		}
		return &st.Tally, nil
	}
	est := newEstimator(st.prev)
	bar := progress.Start(r.Progress, "study", "runs", int64(len(st.todo)))
	for i, ref := range st.todo {
		if ctx.Err() != nil {
			st.Interrupted = true
			break
		}
		rec, err := r.runOne(ctx, st.out, ref)
		if err != nil {
			bar.Finish()
			return &st.Tally, err
		}
		bar.Add(1)
		est.add(rec)
		left := est.remaining(st.todo[i+1:])
		r.say(fmt.Sprintf("[%d/%d] %s rep %d: %s%s", i+1, len(st.todo), ref.Cell.ID, ref.Rep, runLine(rec), etaText(left)))
		switch rec.Status {
		case result.StatusOK:
			st.OK++
		case result.StatusInterrupted:
			st.Interrupted = true
		default:
			st.Failed++
			st.Failures = append(st.Failures, fmt.Sprintf("%s rep %d: %s", ref.Cell.ID, ref.Rep, rec.Error))
		}
		if st.Interrupted {
			break
		}
	}
	bar.Finish()
	r.dropSnapshots(st.out, st)
	return &st.Tally, nil
}

func (r *Runner) shardText() string {
	if r.Shard == All {
		return "the study"
	}
	return "shard " + r.Shard.String()
}

// say prints a line above the progress bar.
func (r *Runner) say(line string) {
	if r.Progress != nil && progress.IsTerminal(r.Progress) {
		fmt.Fprint(r.Progress, "\r\x1b[K")
	}
	fmt.Fprintln(r.Stdout, line)
}

// runLine says how a run ended: "ok in 2.8 s: tps 512.3, qps 1203".
func runLine(rec *RunRecord) string {
	s := fmt.Sprintf("%s in %.1f s", rec.Status, rec.Seconds)
	if rec.Status != result.StatusOK {
		return s + ": " + rec.Error
	}
	for i, m := range rec.Metrics {
		if i == 3 {
			break
		}
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		s += fmt.Sprintf("%s%s %.6g", sep, m.Name, m.Value)
	}
	return s
}

func etaText(left time.Duration) string {
	if left <= 0 {
		return ""
	}
	return fmt.Sprintf("  (about %s left)", left.Round(time.Second))
}

// killAfter is the grace after SIGTERM.
func (r *Runner) killAfter() time.Duration {
	if r.KillAfter > 0 {
		return r.KillAfter
	}
	return 30 * time.Second
}

func (r *Runner) command(args []string) *exec.Cmd {
	if r.Command != nil {
		return r.Command(args)
	}
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return exec.Command(exe, args...)
}
