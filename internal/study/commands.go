package study

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"tierbench/internal/params"
	"tierbench/internal/rundir"
)

// Output is where the study commands write: the plan, findings and report lines
// (Stdout), notes (Stderr), a progress bar (Progress, nil: none), the command line
// the --out lock records (Command), and what makes the process of one phase of a run
// (Child, nil: this executable; tests give their own binary).
type Output struct {
	Stdout, Stderr, Progress io.Writer
	Command                  string
	Child                    func(args []string) *exec.Cmd
}

// RunSettings are the parameters of `tierbench study run`.
type RunSettings struct {
	set                 *params.Set
	out, size, shard    string
	dryRun, retryFailed bool
	task, tasks         string
	blocking, scratch   string
}

// NewRunSettings returns study run's parameters at their defaults.
func NewRunSettings() *RunSettings {
	s := &RunSettings{set: params.NewSet("study run")}
	p := s.set
	p.String(&s.out, "out", "", params.String, "directory for the study: OUT/cells/CELL/rep-N, study.json and the report")
	p.String(&s.size, "size", "", params.String, "a size the study file defines, e.g. quick (default: the file's own values)")
	p.Bool(&s.dryRun, "dry-run", false, "print the plan and every cell with its commands, validate them, run nothing")
	p.String(&s.shard, "shard", "", params.String, "run shard K of N only (K/N, e.g. 1/2), to spread a study over N machines (split as --blocking says); merge with 'study report'")
	p.Bool(&s.retryFailed, "retry-failed", false, "run failed runs again (finished ones are always skipped)")
	s.addClusterParams()
	return s
}

// Params are the parameters, for a command line.
func (s *RunSettings) Params() *params.Set { return s.set }

// Run runs the study file or bundled study target: it plans and validates every cell,
// runs them (resuming), and writes the report; with --dry-run it prints the plan and
// runs nothing. A failed run is an error once the report is written; Ctrl-C keeps
// what finished.
func (s *RunSettings) Run(ctx context.Context, target string, out Output) error {
	err := s.run(ctx, target, out)
	return exitStatus(err, s.shard != "" || s.task != "" || s.tasks != "")
}

func (s *RunSettings) run(ctx context.Context, target string, out Output) error {
	sh, tasks, err := s.split()
	if err != nil {
		return err
	}
	if s.out == "" && !s.dryRun {
		return &UsageError{Err: fmt.Errorf("--out is required: the directory for the study's runs and report")}
	}
	plan, err := planOf(target, s.size)
	if err != nil {
		return err
	}
	dir := s.out
	if dir == "" {
		dir = "OUT"
	}
	r := &Runner{Plan: plan, Out: dir, Shard: sh, RetryFailed: s.retryFailed, Stdout: out.Stdout,
		Progress: out.Progress, Lock: out.Command, Command: out.Child, Tasks: tasks, Scratch: s.scratch}
	if s.dryRun {
		return r.DryRun(ctx)
	}
	tally, err := r.Run(ctx)
	if err != nil {
		return err
	}
	if tasks != nil {
		return taskEnd(tally, dir)
	}
	if tally.Interrupted {
		return fmt.Errorf("interrupted: the %d runs that finished are kept in %s; run the same command again to resume: %w",
			tally.Finished+tally.OK+tally.Failed, dir, context.Canceled)
	}
	if err := writeReportExpecting([]string{dir}, dir, out, r.expected()); err != nil {
		return err
	}
	if failed := tally.Failed + tally.KeptFailed; failed > 0 {
		earlier := ""
		if tally.KeptFailed > 0 {
			earlier = fmt.Sprintf(" (%d in an earlier run of the study, kept as recorded)", tally.KeptFailed)
		}
		return &RunsFailedError{Transient: tally.Transient == failed, Err: fmt.Errorf("%d of %d runs failed%s, each recorded in its cell.json (first: %s): fix the cause and run again with --retry-failed",
			failed, tally.Runs, earlier, tally.Failures[0])}
	}
	return nil
}

// ReportSettings are the parameters of `tierbench study report`.
type ReportSettings struct {
	set     *params.Set
	out     string
	partial bool
}

// NewReportSettings returns study report's parameters at their defaults.
func NewReportSettings() *ReportSettings {
	s := &ReportSettings{set: params.NewSet("study report")}
	s.set.String(&s.out, "out", "", params.String, "directory for the report (default: DIR, when there is one)")
	s.set.Bool(&s.partial, "partial", false, "report a study some of whose tasks have not run (the report names them) and exit 0; without it such a report exits 75")
	return s
}

// Params are the parameters, for a command line.
func (s *ReportSettings) Params() *params.Set { return s.set }

// Run writes the report of the study in dirs (one study, or its shards, merged).
// Tasks that no directory holds a run of are named, in the report and in an error
// (a *MissingTasksError), unless --partial.
func (s *ReportSettings) Run(dirs []string, out Output) error {
	dir := s.out
	if dir == "" {
		if len(dirs) > 1 {
			return exitStatus(&UsageError{Err: fmt.Errorf("--out is required with several directories: where the merged report goes")}, false)
		}
		dir = dirs[0]
	}
	expect := everyTask
	if s.partial {
		expect = nil
	}
	return exitStatus(writeReportExpecting(dirs, dir, out, expect), false)
}

// writeReport writes the report of the study in dirs into dir, under the lock a
// study run and `tierbench report` take: a study running in dir would write its own
// report there, and a second one must not start meanwhile.
func writeReport(dirs []string, dir string, out Output) error {
	return writeReportExpecting(dirs, dir, out, nil)
}

// writeReportExpecting is writeReport that fails (a *MissingTasksError), once the
// report is written, when runs of the tasks expect returns (nil: none) are missing.
func writeReportExpecting(dirs []string, dir string, out Output, expect func(*Results) []Task) error {
	res, err := Load(dirs...)
	if err != nil {
		return err
	}
	rep, err := BuildReport(res)
	if err != nil {
		return err
	}
	if err := checkOut(dir, writesReport, res.Record.Name, res.Record.Fingerprint, dirs); err != nil {
		return err
	}
	if err := rundir.EnsureWritable("--out", dir); err != nil {
		return err
	}
	lock, err := rundir.Acquire(dir, out.Command)
	if err != nil {
		return fmt.Errorf("--out %w", err)
	}
	defer lock.Release()
	if err := rep.Write(dir); err != nil {
		return err
	}
	for _, n := range append(slices.Clone(res.Notes), rep.Notes...) {
		fmt.Fprintf(out.Stderr, "note: %s\n", n)
	}
	for _, f := range rep.Findings() {
		fmt.Fprintln(out.Stdout, f)
	}
	for _, j := range rep.Claims {
		fmt.Fprintln(out.Stdout, j.Line())
	}
	for _, f := range rep.HostFindings() {
		fmt.Fprintln(out.Stdout, f)
	}
	if _, err = fmt.Fprintf(out.Stdout, "report: %s (figures in %s, numbers in %s and %s)\n", filepath.Join(dir, rundir.ReportFile),
		filepath.Join(dir, rundir.FiguresDir), CellsCSVFile, SummaryFile); err != nil {
		return err
	}
	return missingError(res, expect)
}

// CompareSettings are the parameters of `tierbench study compare`.
type CompareSettings struct {
	set *params.Set
	out string
}

// NewCompareSettings returns study compare's parameters at their defaults.
func NewCompareSettings() *CompareSettings {
	s := &CompareSettings{set: params.NewSet("study compare")}
	s.set.String(&s.out, "out", "", params.String, "also write report.html and figures of the comparison here")
	return s
}

// Params are the parameters, for a command line.
func (s *CompareSettings) Params() *params.Set { return s.set }

// Run compares the studies in the directories base and next cell by cell and prints
// the comparison; with --out it writes its report there too.
func (s *CompareSettings) Run(base, next string, out Output) error {
	b, err := Load(base)
	if err != nil {
		return err
	}
	n, err := Load(next)
	if err != nil {
		return err
	}
	cmp, err := Compare(b, n)
	if err != nil {
		return err
	}
	cmp.WriteText(out.Stdout)
	if s.out == "" {
		return nil
	}
	if err := checkOut(s.out, writesComparison, "", "", nil); err != nil {
		return err
	}
	if err := rundir.EnsureWritable("--out", s.out); err != nil {
		return err
	}
	// Under the lock every command takes: a study running there would write its own
	// report, and a second comparison must not write beside this one.
	lock, err := rundir.Acquire(s.out, out.Command)
	if err != nil {
		return fmt.Errorf("--out %w", err)
	}
	defer lock.Release()
	if err := cmp.Write(s.out); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out.Stdout, "report: %s\n", filepath.Join(s.out, rundir.ReportFile))
	return err
}

// WriteBundled lists the bundled studies with their descriptions and sizes.
func WriteBundled(w io.Writer) error {
	for _, name := range Bundled() {
		f, err := Open(name)
		if err != nil {
			return err
		}
		sizes := ""
		if len(f.Sizes) > 0 {
			sizes = " (sizes: " + strings.Join(f.SizeNames(), ", ") + ")"
		}
		if _, err := fmt.Fprintf(w, "%-18s %s%s\n", name, f.Description, sizes); err != nil {
			return err
		}
	}
	return nil
}

// planOf opens the study file or bundled study target and expands it at size.
func planOf(target, size string) (*Plan, error) {
	f, err := Open(target)
	if err != nil {
		return nil, err
	}
	st, err := f.At(size)
	if err != nil {
		return nil, err
	}
	return Expand(st)
}
