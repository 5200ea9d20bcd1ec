package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"tierbench/internal/exitstatus"
	"tierbench/internal/lifecycle"
	"tierbench/internal/metrics"
	"tierbench/internal/result"
	"tierbench/internal/rundir"
	"tierbench/internal/workload"
)

// runOne makes one run: its phases' commands in order in its directory, until one
// does not end ok; then it removes the run's database (unless kept) and writes
// cell.json. The error is for what stops the study (cell.json cannot be written);
// a run that fails is a record, not an error.
func (r *Runner) runOne(ctx context.Context, out string, ref RunRef) (*RunRecord, error) {
	c := ref.Cell
	dir := RunDir(out, c.ID, ref.Rep)
	rec := &RunRecord{Cell: c.ID, Repetition: ref.Rep, Fingerprint: c.Fingerprint, Status: result.StatusOK, Started: time.Now().UTC()}
	finish := func() (*RunRecord, error) {
		rec.Finished = time.Now().UTC()
		rec.Seconds = rec.Finished.Sub(rec.Started).Seconds()
		return rec, metrics.WriteJSONFile(filepath.Join(dir, RunFile), rec)
	}
	fail := func(err error) (*RunRecord, error) {
		rec.Status, rec.Error = result.StatusFailed, oneLine(err)
		return finish()
	}
	if err := r.setAsideEarlier(ctx, dir, c); err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, fmt.Errorf("cell %s rep %d: %w", c.ID, ref.Rep, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cell %s rep %d: %w", c.ID, ref.Rep, err)
	}
	lines, err := lifecycle.CommandArgs(c.Spec(dir))
	if err != nil {
		return fail(err)
	}
	stdout, err := os.OpenFile(filepath.Join(dir, StdoutFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fail(err)
	}
	defer stdout.Close()
	stderr, err := os.OpenFile(filepath.Join(dir, StderrFile), os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return fail(err)
	}
	defer stderr.Close()

	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if t := r.Plan.Study.Timeout; t > 0 {
		runCtx, cancel = context.WithTimeout(ctx, t)
	}
	defer cancel()
	first := 0
	if pop := r.Plan.Populations[c.ID]; pop != nil && pop.Refused == "" {
		use, failed := r.loadFromSnapshot(ctx, runCtx, out, dir, ref, pop, stdout, stderr)
		rec.Load = use
		if failed != nil {
			rec.Phases = append(rec.Phases, *failed)
			rec.Status, rec.Error = failed.Status, fmt.Sprintf("%s: %s", failed.Phase, failed.Why)
			r.removeDatabase(dir, c, stderr)
			return finish()
		}
		first = 1 // the load is the snapshot's
	}
	for i := first; i < len(lines); i++ {
		args := lines[i]
		pr := r.runPhase(ctx, runCtx, dir, c.Phases[i], args, stdout, stderr)
		rec.Phases = append(rec.Phases, pr)
		if len(pr.Metrics) > 0 {
			rec.Metrics, rec.Result = pr.Metrics, pr.File
		}
		if pr.Status != result.StatusOK {
			rec.Status, rec.Error = pr.Status, fmt.Sprintf("%s: %s", pr.Phase, pr.Why)
			break
		}
	}
	r.removeDatabase(dir, c, stderr)
	return finish()
}

// runPhase runs one phase's command and says how it ended: as the command's
// outcome file says, or else by its exit status and the last line it wrote to
// stderr; a timeout or Ctrl-C (of runCtx, ctx) is the study's to say.
func (r *Runner) runPhase(ctx, runCtx context.Context, dir string, phase workload.Phase, args []string, stdout, stderr *os.File) PhaseRecord {
	outcome := filepath.Join(dir, ".outcome-"+string(phase)+".json")
	os.Remove(outcome)
	header := fmt.Sprintf("$ tierbench %s\n", lifecycle.CommandLine(args))
	io.WriteString(stdout, header)
	io.WriteString(stderr, header)
	errStart, _ := stderr.Seek(0, io.SeekEnd)
	cmd := r.command(append(slices.Clone(args), "--"+OutcomeFlag+"="+outcome))
	cmd.Stdout, cmd.Stderr = stdout, stderr
	begin := time.Now()
	stop, err := runChild(runCtx, cmd, r.killAfter())
	pr := PhaseRecord{Phase: phase, Command: args, ExitCode: exitCode(err), Seconds: time.Since(begin).Seconds()}
	oc, ocErr := readJSON[Outcome](outcome)
	os.Remove(outcome)
	switch {
	case oc != nil:
		pr.Status, pr.Why, pr.Metrics = oc.Status, oc.Why, oc.Metrics
		if oc.File != "" {
			pr.File = oc.File
			if rel, err := filepath.Rel(dir, oc.File); err == nil && !strings.HasPrefix(rel, "..") {
				pr.File = rel
			}
		}
	case err == nil:
		pr.Status, pr.Why = result.StatusFailed, "the command said nothing of how it ended"
		if ocErr != nil {
			pr.Why += ": " + ocErr.Error()
		}
	default:
		pr.Status, pr.Why = result.StatusFailed, exitText(err, stop)
		if last := lastLine(stderr, errStart); last != "" {
			pr.Why += ": " + last
		}
	}
	switch {
	case ctx.Err() != nil:
		pr.Status = result.StatusInterrupted
		if pr.Why == "" {
			pr.Why = "interrupted"
		}
		if stop == killed {
			pr.Why = "interrupted; " + stop.text(r.killAfter())
		}
	case runCtx.Err() != nil:
		pr.Status, pr.Why = result.StatusFailed, fmt.Sprintf("timed out after %s (the study's timeout for a cell); %s", r.Plan.Study.Timeout, stop.text(r.killAfter()))
	case pr.Status == result.StatusOK && err != nil:
		pr.Status, pr.Why = result.StatusFailed, exitText(err, stop)
	}
	return pr
}

// exitCode is the command's exit status: -1 when a signal ended it or it did not
// start.
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -1
}

// exitText says how a phase's command ended (stop: what the study did to it). A
// SIGKILL the study did not send came from outside: the kernel's OOM killer, or a user.
func exitText(err error, stop stopped) string {
	text := exitstatus.Text(err)
	if sig, ok := exitstatus.Signal(err); ok && sig == syscall.SIGKILL && stop != killed {
		text += " (not sent by the study: the kernel's OOM killer or a kill -9; see dmesg)"
	}
	return text
}

// lastLine is the last line written to f after offset from, without tierbench's
// "tierbench: " prefix: the error a failed command printed.
func lastLine(f *os.File, from int64) string {
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil || end <= from {
		return ""
	}
	from = max(from, end-4096)
	buf := make([]byte, end-from)
	if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(buf)), "\n")
	return strings.TrimPrefix(strings.TrimSpace(lines[len(lines)-1]), "tierbench: ")
}

// keepsDatabase reports whether the cell's database stays after its runs: its
// parameters keep it (--keep-db) or put it where the study does not own it (--db,
// --dsn).
func keepsDatabase(c *Cell) bool {
	v, keep := c.Values["keep-db"]
	_, db := c.Values["db"]
	_, dsn := c.Values["dsn"]
	return keep && slices.Equal(v, []string{"true"}) || db || dsn
}

// databaseDirs are what a run leaves of its database in its directory: OUT/db and
// the emulated tiers' backing files.
var databaseDirs = []string{"db", "tiers"}

// removeDatabase removes the database a run left in dir (a study of many cells
// would otherwise fill the disk), unless the cell keeps it; a failure is noted in
// the run's stderr.log.
func (r *Runner) removeDatabase(dir string, c *Cell, notes io.Writer) {
	if keepsDatabase(c) {
		return
	}
	for _, d := range databaseDirs {
		if err := os.RemoveAll(filepath.Join(dir, d)); err != nil {
			fmt.Fprintf(notes, "study: could not remove the run's database: %v\n", err)
		}
	}
}

// setAsideEarlier moves an earlier, unfinished or failed attempt at the run in dir
// into dir/earlier/N, once no command of it holds the directory (a study killed
// moments ago leaves its last command stopping), after removing its database.
func (r *Runner) setAsideEarlier(ctx context.Context, dir string, c *Cell) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := waitUnlocked(ctx, dir, r.Lock, r.killAfter()+10*time.Second); err != nil {
		return err
	}
	r.removeDatabase(dir, c, io.Discard)
	var names []string
	for _, e := range entries {
		if n := e.Name(); n != rundir.EarlierDir && !slices.Contains(databaseDirs, n) {
			names = append(names, n)
		}
	}
	_, err = rundir.SetAside(dir, names...)
	return err
}

// waitUnlocked waits, up to limit, until no command holds dir's lock.
func waitUnlocked(ctx context.Context, dir, command string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		l, err := rundir.Acquire(dir, command)
		if err == nil {
			return l.Release()
		}
		var busy *rundir.BusyError
		if !errors.As(err, &busy) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
