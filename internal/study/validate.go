package study

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strconv"
	"strings"

	"tierbench/internal/lifecycle"
	"tierbench/internal/rundir"
)

// Output directory layout of a study.
const (
	// RecordFile is OUT/study.json: the study, its fingerprint and every cell's
	// parameters.
	RecordFile = rundir.StudyFile
	// CellsDir holds OUT/cells/CELL/rep-N, one directory per run.
	CellsDir = "cells"
	// RunFile is OUT/cells/CELL/rep-N/cell.json, written last: how the run ended.
	RunFile = "cell.json"
	// StdoutFile and StderrFile keep what the run's commands printed.
	StdoutFile = "stdout.log"
	StderrFile = "stderr.log"
)

// RunDir is the directory of repetition rep of cell id in the study directory out.
func RunDir(out, id string, rep int) string {
	return filepath.Join(out, CellsDir, id, "rep-"+strconv.Itoa(rep))
}

// Spec is what the cell's run in dir executes: its workload, phases and values, with
// --out set to dir.
func (c Cell) Spec(dir string) lifecycle.Spec {
	values := maps.Clone(c.Values)
	values["out"] = []string{dir}
	return lifecycle.Spec{Workload: c.Workload, Phases: c.Phases, Values: values}
}

// maxInvalid bounds how many invalid cells one validation names.
const maxInvalid = 5

// Validate checks every cell as its runs would start, without running anything:
// each value parses as the command line parses it, and each phase's parameters and
// the run settings are valid together (lifecycle.Validate). What cells share (the
// device profiles, a mix's file) is read once (lifecycle.Validator). The error names
// each invalid cell (up to five) and the flag at fault, one line each; when ctx ends
// (Ctrl-C, SIGTERM) validation stops there, nothing having run.
func (p *Plan) Validate(ctx context.Context, out string) error {
	var lines []string
	bad := 0
	var v lifecycle.Validator
	for i, c := range p.Cells {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted while validating cell %d of %d: nothing has run: %w", i+1, len(p.Cells), err)
		}
		if err := v.Validate(c.Spec(RunDir(out, c.ID, 1))); err != nil {
			bad++
			if len(lines) < maxInvalid {
				lines = append(lines, fmt.Sprintf("%s: cell %s: %s", p.Study.File.Path, c.ID, oneLine(err)))
			}
		}
	}
	if bad > len(lines) {
		lines = append(lines, fmt.Sprintf("%s: and %d more invalid cells", p.Study.File.Path, bad-len(lines)))
	}
	if len(lines) > 0 {
		return &FileError{Problems: lines}
	}
	return nil
}

// oneLine is err's message on one line.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
