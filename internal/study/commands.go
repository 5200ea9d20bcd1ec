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
}

// NewRunSettings returns study run's parameters at their defaults.
func NewRunSettings() *RunSettings {
	s := &RunSettings{set: params.NewSet("study run")}
	p := s.set
	p.String(&s.out, "out", "", params.String, "directory for the study: OUT/cells/CELL/rep-N, study.json and the report")
	p.String(&s.size, "size", "", params.String, "a size the study file defines, e.g. quick (default: the file's own values)")
	p.Bool(&s.dryRun, "dry-run", false, "print the plan and every cell with its commands, validate them, run nothing")
	p.String(&s.shard, "shard", "", params.String, "run the cells of index K-1 modulo N only (K/N, e.g. 1/2), to spread a study over N machines; merge with 'study report'")
	p.Bool(&s.retryFailed, "retry-failed", false, "run failed runs again (finished ones are always skipped)")
	return s
}

// Params are the parameters, for a command line.
func (s *RunSettings) Params() *params.Set { return s.set }

// Run runs the study file or bundled study target: it plans and validates every cell,
// runs them (resuming), and writes the report; with --dry-run it prints the plan and
// runs nothing. A failed run is an error once the report is written; Ctrl-C keeps
// what finished.
func (s *RunSettings) Run(ctx context.Context, target string, out Output) error {
	sh, err := ParseShard(s.shard)
	if err != nil {
		return err
	}
	if s.out == "" && !s.dryRun {
		return fmt.Errorf("--out is required: the directory for the study's runs and report")
	}
	f, err := Open(target)
	if err != nil {
		return err
	}
	st, err := f.At(s.size)
	if err != nil {
		return err
	}
	plan, err := Expand(st)
	if err != nil {
		return err
	}
	dir := s.out
	if dir == "" {
		dir = "OUT"
	}
	r := &Runner{Plan: plan, Out: dir, Shard: sh, RetryFailed: s.retryFailed, Stdout: out.Stdout,
		Progress: out.Progress, Lock: out.Command, Command: out.Child}
	if s.dryRun {
		return r.DryRun(ctx)
	}
	tally, err := r.Run(ctx)
	if err != nil {
		return err
	}
	if tally.Interrupted {
		return fmt.Errorf("interrupted: the %d runs that finished are kept in %s; run the same command again to resume: %w",
			tally.Finished+tally.OK+tally.Failed, dir, context.Canceled)
	}
	if err := writeReport([]string{dir}, dir, out); err != nil {
		return err
	}
	if failed := tally.Failed + tally.KeptFailed; failed > 0 {
		earlier := ""
		if tally.KeptFailed > 0 {
			earlier = fmt.Sprintf(" (%d in an earlier run of the study, kept as recorded)", tally.KeptFailed)
		}
		return fmt.Errorf("%d of %d runs failed%s, each recorded in its cell.json (first: %s): fix the cause and run again with --retry-failed",
			failed, tally.Runs, earlier, tally.Failures[0])
	}
	return nil
}

// ReportSettings are the parameters of `tierbench study report`.
type ReportSettings struct {
	set *params.Set
	out string
}

// NewReportSettings returns study report's parameters at their defaults.
func NewReportSettings() *ReportSettings {
	s := &ReportSettings{set: params.NewSet("study report")}
	s.set.String(&s.out, "out", "", params.String, "directory for the report (default: DIR, when there is one)")
	return s
}

// Params are the parameters, for a command line.
func (s *ReportSettings) Params() *params.Set { return s.set }

// Run writes the report of the study in dirs (one study, or its shards, merged).
func (s *ReportSettings) Run(dirs []string, out Output) error {
	dir := s.out
	if dir == "" {
		if len(dirs) > 1 {
			return fmt.Errorf("--out is required with several directories: where the merged report goes")
		}
		dir = dirs[0]
	}
	return writeReport(dirs, dir, out)
}

// writeReport writes the report of the study in dirs into dir, under the lock a
// study run and `tierbench report` take: a study running in dir would write its own
// report there, and a second one must not start meanwhile.
func writeReport(dirs []string, dir string, out Output) error {
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
	_, err = fmt.Fprintf(out.Stdout, "report: %s (figures in %s, numbers in %s and %s)\n", filepath.Join(dir, rundir.ReportFile),
		filepath.Join(dir, rundir.FiguresDir), CellsCSVFile, SummaryFile)
	return err
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
