package rundir

import (
	"fmt"
	"os"
	"path/filepath"
)

// Files a report writes into the directory it reports on (a run's OUT, a study's):
// the page and its figures. They live here, beside the lock and SetAside, because a
// run that sets its earlier result aside takes the report drawn from it along, and
// the run lifecycle must know their names without linking the report's charts.
const (
	ReportFile = "report.html"
	FiguresDir = "figures"
)

// StudyFile marks a study's directory: OUT/study.json, the study as it was run. It
// lives here for the same reason: a run and a run's report must refuse a study's
// directory (its report and its runs are the study's) without linking the study.
const StudyFile = "study.json"

// HoldsStudy refuses dir when it holds a study, for a command that would write a
// run's files or a run's report there; flag names the directory in the error ("--out",
// or "" for an argument).
func HoldsStudy(flag, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, StudyFile)); err != nil {
		return nil
	}
	what := dir
	if flag != "" {
		what = flag + " " + dir
	}
	return fmt.Errorf("%s holds a study (%s): its report is `tierbench study report %s`, and each of its runs has a directory of its own in %s",
		what, StudyFile, dir, filepath.Join(dir, "cells", "CELL", "rep-N"))
}
