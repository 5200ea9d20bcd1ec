package study

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"tierbench/internal/lifecycle"
	"tierbench/internal/metrics"
	"tierbench/internal/result"
	"tierbench/internal/workload"
)

// recordFormat is the version of study.json's layout.
const recordFormat = 1

// Record is OUT/study.json: the study as it was run, its fingerprint and every
// cell's parameters, so that a report, a resume and a merge of shards need nothing
// but the directory.
type Record struct {
	Format      int      `json:"format"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Notes       []string `json:"notes,omitempty"`
	// File is where the study was read from; Source its text.
	File            string `json:"file"`
	Source          string `json:"source"`
	Size            string `json:"size,omitempty"`
	SizeDescription string `json:"size_description,omitempty"`
	// Fingerprint is Plan.Fingerprint: directories with the same one hold runs of
	// one study.
	Fingerprint string       `json:"fingerprint"`
	Repetitions int          `json:"repetitions"`
	Order       string       `json:"order"`
	Seed        int64        `json:"seed"`
	TimeoutS    float64      `json:"timeout_s,omitempty"`
	Baseline    []Term       `json:"baseline,omitempty"`
	Zip         [][]string   `json:"zip,omitempty"`
	Exclude     []string     `json:"exclude,omitempty"`
	Excluded    int          `json:"excluded,omitempty"`
	Factors     []FactorInfo `json:"factors"`
	Cells       []Cell       `json:"cells"`
	// Expect are the study's expected findings, judged in its report.
	Expect []Claim `json:"expect,omitempty"`
	// Snapshot says the cells that share a population reuse one load.
	Snapshot bool `json:"snapshot,omitempty"`
	// Shard is the --shard of the last run in this directory ("" for all cells).
	Shard   string    `json:"shard,omitempty"`
	Updated time.Time `json:"updated"`
}

// Record is the plan as study.json holds it.
func (p *Plan) Record(sh Shard) *Record {
	s := p.Study
	r := &Record{Format: recordFormat, Name: s.File.Name, Description: s.Description, Notes: s.File.Notes,
		File: s.File.Path, Source: string(s.File.Source), Size: s.Size, SizeDescription: s.SizeDescription,
		Fingerprint: p.Fingerprint, Repetitions: s.Repetitions, Order: s.Order, Seed: s.Seed,
		TimeoutS: s.Timeout.Seconds(), Excluded: p.Excluded, Factors: p.Factors, Cells: p.Cells,
		Expect: p.Claims, Snapshot: s.Snapshot, Updated: time.Now().UTC()}
	if sh != All {
		r.Shard = sh.String()
	}
	if s.Baseline != nil {
		r.Baseline = s.Baseline.Terms
	}
	for _, g := range s.Zip {
		r.Zip = append(r.Zip, g.Factors)
	}
	for _, m := range s.Exclude {
		r.Exclude = append(r.Exclude, describe(m))
	}
	return r
}

// ReadRecord reads OUT/study.json; a directory without one is an error that says so,
// and a study.json that does not decode is a *DamagedError.
func ReadRecord(out string) (*Record, error) {
	path := filepath.Join(out, RecordFile)
	r, err := readJSON[Record](path)
	switch {
	case err != nil:
		return nil, err
	case r == nil:
		return nil, fmt.Errorf("%s holds no study (no %s): give the --out of a `tierbench study run`", out, RecordFile)
	case r.Format != recordFormat:
		return nil, fmt.Errorf("%s: format %d, this tierbench reads format %d", path, r.Format, recordFormat)
	}
	return r, nil
}

// Cell is the recorded cell with ID id, or nil.
func (r *Record) Cell(id string) *Cell {
	for i := range r.Cells {
		if r.Cells[i].ID == id {
			return &r.Cells[i]
		}
	}
	return nil
}

// RunRecord is OUT/cells/CELL/rep-N/cell.json, written last when a run ends: how it
// ended and why, its headline metrics, and each phase's command.
type RunRecord struct {
	Cell        string `json:"cell"`
	Repetition  int    `json:"repetition"`
	Fingerprint string `json:"fingerprint"`
	// Status is ok, failed (a phase failed, or the run timed out) or interrupted
	// (Ctrl-C: run again).
	Status   result.Status `json:"status"`
	Error    string        `json:"error,omitempty"`
	Started  time.Time     `json:"started"`
	Finished time.Time     `json:"finished"`
	Seconds  float64       `json:"seconds"`
	// Metrics are the headline metrics of the last phase that has some; Result is
	// that phase's result file, relative to the run's directory.
	Metrics []result.Metric `json:"metrics,omitempty"`
	Result  string          `json:"result,omitempty"`
	Phases  []PhaseRecord   `json:"phases"`
	// Load says the run's population came from a snapshot (its load phase is not
	// among Phases), which, and what loading and copying it took; nil when the run
	// loaded for itself.
	Load *LoadReuse `json:"load,omitempty"`
	// Dir is the run's directory, set when read (not stored).
	Dir string `json:"-"`
}

// PhaseRecord is one phase of a run: the tierbench command that ran it and how it
// ended.
type PhaseRecord struct {
	Phase workload.Phase `json:"phase"`
	// Command is the command line after "tierbench".
	Command  []string        `json:"command"`
	ExitCode int             `json:"exit_code"`
	Status   result.Status   `json:"status"`
	Why      string          `json:"why,omitempty"`
	Seconds  float64         `json:"seconds"`
	File     string          `json:"file,omitempty"`
	Metrics  []result.Metric `json:"metrics,omitempty"`
}

// runKey identifies a run of a study.
type runKey struct {
	cell string
	rep  int
}

// readRuns reads every run recorded under out, by cell and repetition, and the
// cell.json files that do not read as a run's record (damaged): those runs count as
// not run, and whoever reads them says so.
func readRuns(out string) (map[runKey]*RunRecord, []*DamagedError, error) {
	paths, err := filepath.Glob(filepath.Join(out, CellsDir, "*", "rep-*", RunFile))
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(paths)
	runs := map[runKey]*RunRecord{}
	var damaged []*DamagedError
	for _, path := range paths {
		rep, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(filepath.Dir(path)), "rep-"))
		if err != nil {
			continue
		}
		r, err := readJSON[RunRecord](path)
		var d *DamagedError
		switch {
		case errors.As(err, &d):
			damaged = append(damaged, d)
			continue
		case err != nil:
			return nil, nil, err
		case r == nil: // removed since the glob
			continue
		case r.Cell == "" || r.Status == "":
			damaged = append(damaged, &DamagedError{Path: path, Err: errors.New("it names no cell or no status")})
			continue
		}
		r.Dir = filepath.Dir(path)
		runs[runKey{r.Cell, rep}] = r
	}
	return runs, damaged, nil
}

// Outcome is what a phase command writes for the study that ran it (the hidden
// --outcome flag): how the phase ended, its result file and headline metrics.
type Outcome struct {
	Phase   workload.Phase  `json:"phase"`
	Status  result.Status   `json:"status"`
	Why     string          `json:"why,omitempty"`
	File    string          `json:"file,omitempty"`
	Metrics []result.Metric `json:"metrics,omitempty"`
}

// OutcomeFlag is the hidden flag of every phase command that names the file its
// Outcome goes to.
const OutcomeFlag = "outcome"

// WriteOutcome writes how a phase command ended (o and err, as lifecycle.Execute
// returned them) to path, for the study that runs it in a process of its own.
func WriteOutcome(path string, phase workload.Phase, o *lifecycle.Outcome, err error) error {
	oc := Outcome{Phase: phase, Status: result.StatusOK}
	if o != nil && len(o.Phases) > 0 {
		p := o.Phases[len(o.Phases)-1]
		oc.Status, oc.Why, oc.File, oc.Metrics = p.Status, p.Why, p.File, p.Metrics
	}
	switch {
	case errors.Is(err, context.Canceled):
		oc.Status, oc.Why = result.StatusInterrupted, oneLine(err)
	case err != nil:
		if oc.Status == result.StatusOK {
			oc.Status = result.StatusFailed
		}
		oc.Why = oneLine(err)
	}
	return metrics.WriteJSONFile(path, oc)
}
