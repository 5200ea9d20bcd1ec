package study

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"tierbench/internal/result"
)

// ComparisonFile marks the directory of a comparison (`study compare --out`): the two
// studies compared and what the comparison noted.
const ComparisonFile = "comparison.json"

// What a study command writes into its --out, for checkOut.
const (
	writesStudy      = "a study"
	writesReport     = "a study's report"
	writesComparison = "a comparison"
)

// OccupiedError is an --out that holds results of something else: writing there
// would replace them (a report, its figures) or mix with them (runs).
type OccupiedError struct {
	Dir string
	// Holds says what the directory holds ("a run (result.json)"); Writes what the
	// command would write there.
	Holds, Writes string
	// Hint says what else to do, when there is more than another --out.
	Hint string
}

func (e *OccupiedError) Error() string {
	hint := "give another --out"
	if e.Hint != "" {
		hint = e.Hint
	}
	return fmt.Sprintf("--out %s holds %s: %s written there would replace or mix with it; %s", e.Dir, e.Holds, e.Writes, hint)
}

// summaryHead is the part of a study report's summary.json that says which study it
// is of.
type summaryHead struct {
	Study       string `json:"study"`
	Fingerprint string `json:"fingerprint"`
}

// checkOut refuses an --out dir that holds the results of something other than what
// the command writes: writes is what it writes, name and fingerprint the study's
// ("" for a comparison), and reads the study directories a report reads (dir among
// them is the study's own directory). Files it cannot tell apart from its own (an
// earlier report of the same study, an earlier comparison) it lets be replaced.
func checkOut(dir, writes, name, fingerprint string, reads []string) error {
	has := func(file string) bool {
		_, err := os.Stat(filepath.Join(dir, file))
		return err == nil
	}
	occupied := func(holds, hint string) error {
		return &OccupiedError{Dir: dir, Holds: holds, Writes: writes, Hint: hint}
	}
	if has(result.File) {
		return occupied("a run ("+result.File+")", "")
	}
	if writes != writesComparison && has(ComparisonFile) {
		return occupied("a comparison ("+ComparisonFile+")", "")
	}
	if has(RecordFile) {
		switch writes {
		case writesComparison:
			return occupied("a study ("+RecordFile+")", "")
		case writesReport:
			if !slices.ContainsFunc(reads, func(d string) bool { return sameDir(d, dir) }) {
				return occupied("runs of a study ("+RecordFile+") that this report does not read",
					"give it among the directories to report on, or another --out")
			}
		case writesStudy:
			if rec, err := ReadRecord(dir); err == nil && rec.Name != name {
				return occupied(fmt.Sprintf("study %s (%s, from %s)", rec.Name, RecordFile, rec.File), "")
			}
		}
		return nil
	}
	if has(SummaryFile) {
		head, _ := readJSON[summaryHead](filepath.Join(dir, SummaryFile))
		switch {
		case writes == writesComparison:
			return occupied("a study's report ("+SummaryFile+")", "")
		case head != nil && head.Fingerprint != "" && head.Fingerprint != fingerprint:
			return occupied(fmt.Sprintf("the report of study %s (%s, fingerprint %s)", head.Study, SummaryFile, head.Fingerprint), "")
		}
	}
	return nil
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) bool {
	ai, aerr := os.Stat(a)
	bi, berr := os.Stat(b)
	if aerr != nil || berr != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(ai, bi)
}
