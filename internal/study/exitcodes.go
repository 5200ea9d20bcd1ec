package study

import (
	"context"
	"errors"
	"fmt"

	"tierbench/internal/rundir"
	"tierbench/internal/workload"
)

// Exit statuses of `study run` and `study report` for a scheduler (docs/cluster.md),
// from sysexits.h: whether running the same command again can help.
const (
	// ExitUsage (EX_USAGE): a flag is wrong (--task out of range, --tasks 5-2). Do
	// not retry.
	ExitUsage = 64
	// ExitData (EX_DATAERR): a directory holds files this tierbench does not read
	// (written by a tierbench of another format). Do not retry.
	ExitData = 65
	// ExitRetry (EX_TEMPFAIL): the run did not finish for a reason of the moment:
	// it was interrupted (the scheduler's SIGTERM: a cancel, a requeue, a
	// preemption), killed from outside (the OOM killer), another attempt of the
	// task still holds its directory, or the study's tasks have not all run yet.
	// Retry.
	ExitRetry = 75
	// ExitConfig (EX_CONFIG): the study file or a cell is invalid, or the
	// directory holds another study. Do not retry.
	ExitConfig = 78
	// A run that failed for a cause of its own (recorded in its cell.json) exits 1:
	// the same run would fail again. Do not retry; fix the cause and run with
	// --retry-failed.
)

// UsageError is a flag of a study command that is wrong.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// RunsFailedError is a study run whose runs failed, each recorded in its cell.json.
type RunsFailedError struct {
	Err error
	// Transient says every failure may not recur (ExitRetry); otherwise the
	// runs would fail again (exit 1).
	Transient bool
}

func (e *RunsFailedError) Error() string { return e.Err.Error() }
func (e *RunsFailedError) Unwrap() error { return e.Err }

// exitStatus gives err the exit status a scheduler reads (a *workload.ExitError,
// which the command line exits with). scheduled says the command runs under a
// scheduler (--shard, --task, --tasks): an interruption is then its SIGTERM, to be
// retried, rather than a Ctrl-C at a terminal (130).
func exitStatus(err error, scheduled bool) error {
	if err == nil {
		return nil
	}
	var (
		usage    *UsageError
		file     *FileError
		mismatch *MismatchError
		occupied *OccupiedError
		another  *AnotherStudyError
		format   *FormatError
		busy     *rundir.BusyError
		failed   *RunsFailedError
		missing  *MissingTasksError
		already  *workload.ExitError
	)
	code := 0
	switch {
	case errors.As(err, &already):
		return err
	case errors.As(err, &usage):
		code = ExitUsage
	case errors.As(err, &format):
		code = ExitData
	case errors.As(err, &file), errors.As(err, &mismatch), errors.As(err, &occupied), errors.As(err, &another):
		code = ExitConfig
	case errors.As(err, &busy), errors.As(err, &missing):
		code = ExitRetry
	case errors.As(err, &failed):
		code = 1
		if failed.Transient {
			code = ExitRetry
		}
	case errors.Is(err, context.Canceled) && scheduled:
		code = ExitRetry
	default:
		return err
	}
	return &workload.ExitError{Code: code, Err: err}
}

// AnotherStudyError is a task of one study (a file at a size) given a directory
// that holds another: the tasks of one array job must be of one study.
type AnotherStudyError struct {
	Out string
	// Held is the study the directory holds, Given the task's.
	Held, Given *Record
}

func (e *AnotherStudyError) Error() string {
	return fmt.Sprintf("--out %s holds %s, and this task is of %s: give the study file and --size the other tasks were given, or another --out; nothing was run",
		e.Out, studyText(e.Held), studyText(e.Given))
}

// sameTasks reports whether two records number the same runs the same way: the same
// cells (fingerprint), size, repetitions and order.
func sameTasks(a, b *Record) bool {
	return a.Fingerprint == b.Fingerprint && a.Size == b.Size && a.Repetitions == b.Repetitions && a.Order == b.Order && a.Seed == b.Seed
}

// studyText is "study smoke at --size quick (fingerprint aa5c91ee69fa, 2
// repetitions, shuffled with seed 14)".
func studyText(r *Record) string {
	order := "in a fixed order"
	if r.Order == OrderShuffled {
		order = fmt.Sprintf("shuffled with seed %d", r.Seed)
	}
	return fmt.Sprintf("study %s at %s (fingerprint %s, %s, %s)", r.Name, sizeName(r.Size), short(r.Fingerprint), plural(r.Repetitions, "repetition"), order)
}

func short(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}
