package rundir

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHoldsStudy: a directory with a study.json is a study's, refused with the flag
// (or without one, for an argument) and the way to its report; any other is not.
func TestHoldsStudy(t *testing.T) {
	dir := t.TempDir()
	if err := HoldsStudy("--out", dir); err != nil {
		t.Errorf("an empty directory: %v", err)
	}
	if err := HoldsStudy("--out", filepath.Join(dir, "new")); err != nil {
		t.Errorf("a directory yet to be made: %v", err)
	}
	write(t, filepath.Join(dir, StudyFile), "{}")
	want := "holds a study (study.json): its report is `tierbench study report " + dir + "`, and each of its runs has a directory of its own in " + filepath.Join(dir, "cells", "CELL", "rep-N")
	if err := HoldsStudy("--out", dir); err == nil || err.Error() != "--out "+dir+" "+want {
		t.Errorf("a study's directory: %v", err)
	}
	if err := HoldsStudy("", dir); err == nil || err.Error() != dir+" "+want {
		t.Errorf("a study's directory as an argument: %v", err)
	}
	os.Remove(filepath.Join(dir, StudyFile))
}
