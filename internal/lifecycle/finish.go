package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"tierbench/internal/energy"
	"tierbench/internal/exitstatus"
	"tierbench/internal/metrics"
	"tierbench/internal/monitor"
	"tierbench/internal/placement"
	"tierbench/internal/result"
	"tierbench/internal/verdict"
	"tierbench/internal/workload"
)

// Finish ends the run that produced rep (nil: nothing to write) and ended with
// runErr: it stops the monitor, closes the engine and then unmounts the tiers (in that
// order, whatever happened before), attaches the storage, energy and monitoring
// sections to rep's result, writes it, prints its summary and, for a run's result,
// where it is; it puts the earlier command's files back when this one wrote none of
// them (unless it replaced what they describe), says where they are otherwise, and
// unlocks the output directory. The error is worded so that users know what was kept:
// only what the file really holds. Finish is safe to call more than once; later calls
// return the first one's error.
func (r *Run) Finish(rep *workload.Report, runErr error) error {
	if r.finished {
		return r.result
	}
	r.finished = true
	now := time.Now()
	var monErr error
	if m := r.mon; m != nil {
		monErr = m.Stop(now) // its last sample ends the energy section's run window
	} else {
		// Without a monitor the run is one interval, at its average utilisation: the
		// linear CPU model's energy over it is the same as over finer intervals.
		r.rec.Sample(now, readCPUTimes().utilisation(r.cpu0))
	}
	if r.exp != nil {
		r.exp.Close()
	}
	storage, stopErr := r.stop() // the engine stops before its devices unmount
	// A process the run depended on that died (the emulator's server, the database
	// server) is the cause of what failed after it: it comes first.
	err := exitstatus.CauseFirst(errors.Join(runErr, monErr, stopErr))
	if died := (*exitstatus.DiedError)(nil); errors.As(err, &died) && rep != nil {
		if ct, ok := rep.Result.(workload.CauseTaker); ok {
			ct.TakeCause(died.Error())
		}
	}
	if rep == nil || rep.Result == nil {
		r.rec.Close()
		r.result = errors.Join(err, r.release())
		return r.result
	}
	if s, ok := rep.Result.(result.Attached); ok {
		sec := s.ResultSections()
		sec.Storage = storage
		en, enErr := r.rec.Finish(energy.Inputs{Windows: r.windows, Devices: storage.EnergyDevices()})
		sec.Energy = en
		err = errors.Join(err, enErr)
		if m := r.mon; m != nil {
			m.Attach(sec)
		}
		if subject, ok := rep.Result.(verdict.Subject); ok {
			sec.Verdict = verdict.JudgeRun(sec.Monitoring, subject, r.verdictFacts())
		}
	} else {
		r.rec.Close()
	}
	err = r.write(rep, storage, err)
	r.result = errors.Join(err, r.release())
	if r.result == nil && rep.Done != nil {
		r.result = rep.Done(r.io.Stdout)
	}
	return r.result
}

// Checkpoint writes the phase's result as it stands to OUT/result.json atomically, so
// that what was measured survives a crash (workload.Env). The sections come with
// Finish, once the engine has stopped and the figures are final. A phase whose
// request names no result.json has none to save: an earlier command's would be
// overwritten, not set aside.
func (r *Run) Checkpoint(res any) error {
	if !slices.Contains(r.cfg.Request.Results, result.File) {
		return fmt.Errorf("%s: this phase writes no %s", r.cfg.Out, result.File)
	}
	err := writeJSON(filepath.Join(r.cfg.Out, result.File), res)
	if err == nil {
		r.checkpointed = true
	}
	return err
}

// Close ends a run that produced nothing (Finish(nil, nil)) unless Finish ran; for a
// deferred call after an early return.
func (r *Run) Close() error { return r.Finish(nil, nil) }

// write writes rep's result (and a load's storage section), prints its summary and
// words err by what was kept.
func (r *Run) write(rep *workload.Report, storage *result.Storage, err error) error {
	path := filepath.Join(r.cfg.Out, rep.File)
	werr := writeJSON(path, rep.Result)
	if rep.StorageFile != "" && storage != nil {
		storage.WriteSummary(r.io.Stdout)
		werr = errors.Join(werr, metrics.WriteJSONFile(filepath.Join(r.cfg.Out, rep.StorageFile), storage))
	}
	if rep.Summary != nil {
		rep.Summary(r.io.Stdout)
		if s, ok := rep.Result.(result.Attached); ok {
			writeMonitoring(r.io.Stdout, s.ResultSections())
		}
	}
	if s, ok := rep.Result.(result.Attached); ok && r.cfg.PrintEnergy {
		energy.WriteSummary(r.io.Stdout, s.ResultSections().Energy, "")
	}
	if !rep.Announce {
		return errors.Join(err, werr)
	}
	kept, where := "what was measured is kept in "+path, true
	if werr != nil {
		err = errors.Join(err, werr)
		if r.checkpointed && rep.File == result.File {
			kept = path + " holds what was measured until the last write that succeeded"
		} else {
			kept, where = "nothing of this run could be written to "+path+": the summary above is all that is left of it", false
		}
	}
	if where {
		fmt.Fprintf(r.io.Stdout, "\nresult: %s\n", path)
	}
	err = oneLine(err)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("interrupted: %s: %w", kept, err)
	}
	return fmt.Errorf("%w (%s)", err, kept)
}

// release puts the earlier command's files back when this one wrote none of them
// (unless the phase replaces what they describe), says where they are otherwise, and
// unlocks the output directory.
func (r *Run) release() error {
	var err error
	if !r.cfg.Request.Replaces {
		err = r.aside.Restore()
	}
	if r.aside.Kept() {
		r.note(r.aside.String())
	}
	r.aside = nil
	return errors.Join(err, r.lock.Release())
}

// writeMonitoring prints the monitoring lines of the verdict's headline window (the
// whole run's without a verdict) and the verdict's lines, after a result's summary.
func writeMonitoring(w io.Writer, sec *result.Sections) {
	sum := sec.Monitoring
	if sum == nil {
		return
	}
	ws := sum.Run
	if sec.Verdict != nil {
		if hw := sum.Window(sec.Verdict.Window); hw != nil {
			ws = hw
		}
	}
	fmt.Fprintln(w)
	monitor.WriteLines(w, sum, ws)
	verdict.WriteLines(w, sec.Verdict)
}

// verdictFacts are what the verdict knows of the whole run: whether the workload runs
// inside tierbench, and the emulated tiers with the classes of files each holds (the
// monitor's storage names the disks under directories).
func (r *Run) verdictFacts() verdict.Facts {
	f := verdict.Facts{Embedded: r.embedded}
	if r.cfg.Engine == nil {
		f.Inside = "the workload"
	}
	plan := r.cfg.Plan
	if plan.Empty() {
		return f
	}
	for _, t := range plan.Tiers {
		if !t.Emulated() {
			continue
		}
		vt := verdict.Tier{Name: t.Name, Spec: t.Spec}
		for _, c := range placement.AllClasses {
			if pt, ok := plan.Tier(c); ok && pt.Name == t.Name {
				vt.Classes = append(vt.Classes, string(c))
			}
		}
		f.Tiers = append(f.Tiers, vt)
	}
	return f
}

// writeJSON writes results atomically; tests make it fail as a full disk would.
var writeJSON = metrics.WriteJSONFile

// lineErrors are errors on one line, as errors.Join would hold them on several.
type lineErrors []error

func (e lineErrors) Error() string {
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (e lineErrors) Unwrap() []error { return e }

// oneLine puts the errors err joins (errors.Join) on one line, each message once: a
// full disk fails the run's last save and Finish's write alike.
func oneLine(err error) error {
	var out lineErrors
	seen := map[string]bool{}
	var flatten func(error)
	flatten = func(err error) {
		if parts := joinedParts(err); parts != nil {
			for _, e := range parts {
				flatten(e)
			}
		} else if err != nil && !seen[err.Error()] {
			seen[err.Error()] = true
			out = append(out, err)
		}
	}
	flatten(err)
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return out
}

// joinedParts are the errors err joins when errors.Join made it (its message is
// theirs, one a line), nil otherwise: an error of fmt.Errorf with several %w has
// words of its own, which flattening would lose.
func joinedParts(err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return nil
	}
	parts := j.Unwrap()
	msgs := make([]string, 0, len(parts))
	for _, p := range parts {
		msgs = append(msgs, p.Error())
	}
	if err.Error() != strings.Join(msgs, "\n") {
		return nil
	}
	return parts
}
