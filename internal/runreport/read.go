package runreport

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"time"

	"tierbench/internal/metrics"
	"tierbench/internal/monitor"
	"tierbench/internal/result"
	"tierbench/internal/resultfile"
	"tierbench/internal/workload"
)

// ResultFile is the file that makes a directory a run directory.
const ResultFile = result.File

// run is what a run directory holds, read.
type run struct {
	dir string
	// c is result.json's members that every workload's file may have.
	c        resultfile.Common
	workload string
	// meta describes the workload that wrote the result (nil: one this tierbench
	// does not know).
	meta     *workload.Meta
	headline []result.Metric
	status   result.Status
	why      string
	// samples are metrics.jsonl's lines (nil without monitoring); intervals are
	// intervals.jsonl's.
	samples   []monitor.Sample
	intervals []metrics.IntervalRecord
	// origin is time 0 of every chart: the monitor's first sample, else the start of
	// the first interval, else the energy recorder's first sample; originText says
	// which.
	origin     time.Time
	originText string
	// notes say what the directory lacks, for the report's reader.
	notes []string
}

// NotRunDirError says that a directory has no result.json.
type NotRunDirError struct {
	Dir, Path string
}

func (e *NotRunDirError) Error() string {
	return fmt.Sprintf("%s: no such file: %s is not a run directory (tpch run, tpcc run, oltp run, postmark run and each device of the demo write one)", e.Path, e.Dir)
}

// IsRunDir returns a *NotRunDirError when dir has no result.json, and nil when it has
// one (or it cannot tell: reading it will say why).
func IsRunDir(dir string) error {
	path := filepath.Join(dir, ResultFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return &NotRunDirError{Dir: dir, Path: path}
	}
	return nil
}

// read reads the run directory dir.
func read(dir string) (*run, error) {
	path := filepath.Join(dir, ResultFile)
	d, err := resultfile.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &NotRunDirError{Dir: dir, Path: path}
	}
	if err != nil {
		return nil, err
	}
	r := &run{dir: dir, c: d.Common, workload: d.Title(), meta: d.Workload, headline: d.Headline()}
	r.status, r.why = d.RunStatus()
	if d.Workload == nil {
		r.notes = append(r.notes, fmt.Sprintf("%s is a result of %q, which this tierbench does not know: its headline numbers are not shown", path, r.c.Benchmark))
	}
	if err := r.readSamples(); err != nil {
		return nil, err
	}
	if err := r.readIntervals(); err != nil {
		return nil, err
	}
	r.originText = "the monitor's first sample"
	switch {
	case len(r.samples) > 0:
		s := r.samples[0]
		r.origin = s.Time.Add(-time.Duration(s.ElapsedS * float64(time.Second)))
	case r.c.Monitoring != nil && !r.c.Monitoring.Start.IsZero():
		r.origin = r.c.Monitoring.Start
	case len(r.intervals) > 0:
		i := r.intervals[0]
		r.origin = i.Time
		if l := i.IntervalS; l > 0 && !math.IsInf(l, 0) { // NaN (null in the file) fails l > 0
			r.origin = i.Time.Add(-time.Duration(l * float64(time.Second)))
		}
		r.originText = "the start of the first report interval"
	case r.c.Energy != nil && r.c.Energy.Chart != nil:
		r.origin = r.c.Energy.Chart.Start
		r.originText = "the energy recorder's first sample"
	}
	return r, nil
}

// readSamples reads the monitor's metrics.jsonl, as the monitoring section names it.
func (r *run) readSamples() error {
	m := r.c.Monitoring
	if m == nil {
		r.notes = append(r.notes, "This run was not monitored (result.json has no monitoring section: --sample off, or a phase the monitor does not sample): there are no charts of the machine, no per-window summaries and no verdict.")
		return nil
	}
	if m.File == "" {
		r.notes = append(r.notes, "The monitor wrote no metrics.jsonl: the charts over time are missing; the per-window summaries are result.json's.")
		return nil
	}
	path := filepath.Join(r.dir, m.File)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		r.notes = append(r.notes, fmt.Sprintf("%s is missing: the charts of the machine over time are left out; the per-window summaries are result.json's.", path))
		return nil
	}
	samples, torn, err := monitor.ReadSamples(path)
	if err != nil {
		return err
	}
	r.samples = samples
	r.tornNote(torn)
	return nil
}

// tornNote says, when a file ended in a torn line, that the report leaves it out.
func (r *run) tornNote(torn *metrics.TornLine) {
	if torn != nil {
		r.notes = append(r.notes, torn.String()+".")
	}
}

// readIntervals reads the runner's intervals.jsonl, one record a line; a line that is
// not a record is an error naming it, but a torn last line is left out (tornNote).
func (r *run) readIntervals() error {
	if r.c.IntervalsFile == "" {
		return nil
	}
	path := filepath.Join(r.dir, r.c.IntervalsFile)
	torn, err := metrics.ReadJSONLines(path, func(_ int, rec *metrics.IntervalRecord) error {
		r.intervals = append(r.intervals, *rec)
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		r.notes = append(r.notes, fmt.Sprintf("%s is missing: the charts of throughput and latency over time are left out.", path))
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w (not an interval record)", err)
	}
	r.tornNote(torn)
	return nil
}

// since is t in seconds since the run's origin, to the millisecond (metrics.jsonl's
// precision).
func (r *run) since(t time.Time) float64 {
	return math.Round(t.Sub(r.origin).Seconds()*1000) / 1000
}
