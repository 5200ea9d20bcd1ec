package study

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"tierbench/internal/exitstatus"
	"tierbench/internal/host"
	"tierbench/internal/rundir"
)

// PartialSuffix ends the name of each JSON file of an attempt set aside in
// rep-N/earlier/M: result.json becomes result.partial.json, cell.json
// cell.partial.json. An attempt that was interrupted (a requeue, a Ctrl-C) or failed
// is not a run of the study, and whoever counts result.json files, or globs them,
// must not take it for one; the file keeps what was measured, for a reader who
// wants it. A mark inside the file would help only readers that open it.
const PartialSuffix = ".partial.json"

// markPartial renames the JSON files of an attempt set aside (a: nil when there
// was none) to NAME.partial.json.
func markPartial(a *rundir.Aside) error {
	if a == nil {
		return nil
	}
	var errs []error
	for i, name := range a.Files {
		if !strings.HasSuffix(name, ".json") || strings.HasSuffix(name, PartialSuffix) {
			continue
		}
		to := strings.TrimSuffix(name, ".json") + PartialSuffix
		if err := os.Rename(filepath.Join(a.To, name), filepath.Join(a.To, to)); err != nil {
			errs = append(errs, fmt.Errorf("name the earlier attempt's %s as partial: %w", name, err))
			continue
		}
		a.Files[i] = to
	}
	return errors.Join(errs...)
}

// attempts counts the earlier attempts at the run in dir: its earlier/N directories.
func attempts(dir string) int {
	entries, _ := os.ReadDir(filepath.Join(dir, rundir.EarlierDir))
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err == nil && e.IsDir() {
			n++
		}
	}
	return n
}

// transient reports whether a phase's command ended for a reason of the moment,
// not of the run: a signal the study did not send (the OOM killer, a node going
// down), or a command that could not start. A timeout, or the command's own
// failure, would come again.
func transient(err error, stop stopped) bool {
	if err == nil || stop != notStopped {
		return false
	}
	if _, ok := exitstatus.Signal(err); ok {
		return true
	}
	var ee *exec.ExitError
	return !errors.As(err, &ee)
}

// runExtra is what a run's record says of where it ran: its task, this machine.
func (r *Runner) runExtra(ref RunRef, dir string) runExtra {
	x := runExtra{Format: runFormat, Host: host.Collect(dir)}
	if t := r.tasks().Of(ref.Cell.ID, ref.Rep); t != nil {
		x.Task = t.Index
	}
	return x
}

// tasks are the plan's tasks, numbered once.
func (r *Runner) tasks() *Tasks {
	if r.taskList == nil {
		r.taskList = r.Plan.Tasks()
	}
	return r.taskList
}

// lockRun locks one run of the study in out against a second attempt at it, by
// this study or by a task of it on another machine sharing out: OUT/cells/CELL/
// rep-N.lock, beside the run's directory, whose own lock each phase's command takes.
func (r *Runner) lockRun(out string, ref RunRef) (func(), error) {
	dir := filepath.Dir(RunDir(out, ref.Cell.ID, ref.Rep))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cell %s rep %d: %w", ref.Cell.ID, ref.Rep, err)
	}
	name, _ := os.Hostname()
	l, err := rundir.AcquireFile(dir, fmt.Sprintf("rep-%d.lock", ref.Rep), fmt.Sprintf("%s (on %s)", r.Lock, name))
	if err != nil {
		return nil, fmt.Errorf("repetition %d of cell %s (task %d): another attempt at it is running: %w", ref.Rep, ref.Cell.ID, r.tasks().Of(ref.Cell.ID, ref.Rep).Index, err)
	}
	return func() { l.Release() }, nil
}
