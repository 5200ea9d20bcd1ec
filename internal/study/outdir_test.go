package study

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/rundir"
)

// TestOutHoldsSomethingElse: no study command writes into a directory that holds the
// results of something else (a run, another study, its report, a comparison), and a
// refused command writes nothing; each command may write again over what it wrote.
func TestOutHoldsSomethingElse(t *testing.T) {
	p := mustExpand(t, fakeStudy, "")
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, dir := range []string{a, b} {
		if _, err := fakeRunner(p, dir).Run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(root, "other")
	if _, err := fakeRunner(mustExpand(t, strings.Replace(fakeStudy, "name: fake", "name: other", 1), ""), other).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := Output{Stdout: io.Discard, Stderr: io.Discard, Command: "study test"}
	if err := writeReport([]string{a}, a, out); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(root, "run")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "result.json"), []byte(`{"tps": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}

	// unchanged reports whether dir's files are as they were.
	snapshot := func(dir string) map[string][]byte {
		files := map[string][]byte{}
		filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				files[path], _ = os.ReadFile(path)
			}
			return nil
		})
		return files
	}
	same := func(before, after map[string][]byte) bool {
		if len(before) != len(after) {
			return false
		}
		for k, v := range before {
			if !bytes.Equal(after[k], v) {
				return false
			}
		}
		return true
	}
	refused := func(name, dir, holds string, do func() error) {
		t.Helper()
		before := snapshot(dir)
		err := do()
		var occ *OccupiedError
		if !errors.As(err, &occ) || !strings.HasPrefix(err.Error(), "--out "+dir+" holds "+holds) {
			t.Errorf("%s: %v, want --out %s holds %s", name, err, dir, holds)
		}
		if !same(before, snapshot(dir)) {
			t.Errorf("%s: the refused command changed %s", name, dir)
		}
	}
	compare := func(base, next, dir string) error {
		s := NewCompareSettings()
		s.out = dir
		return s.Run(base, next, out)
	}

	refused("study run into a run's directory", run, "a run (result.json)", func() error {
		_, err := fakeRunner(p, run).Run(context.Background())
		return err
	})
	refused("study run into another study's directory", other, "study other (study.json, from test.yaml)", func() error {
		_, err := fakeRunner(p, other).Run(context.Background())
		return err
	})
	refused("study report into another study's directory", other, "runs of a study (study.json) that this report does not read", func() error {
		return writeReport([]string{a}, other, out)
	})
	refused("study report into a run's directory", run, "a run (result.json)", func() error {
		return writeReport([]string{a}, run, out)
	})
	refused("compare into a study's directory", a, "a study (study.json)", func() error { return compare(a, b, a) })

	merged := filepath.Join(root, "merged")
	if err := writeReport([]string{a, b}, merged, out); err != nil {
		t.Fatal(err)
	}
	if err := writeReport([]string{b, a}, merged, out); err != nil {
		t.Errorf("the same study's report again: %v", err)
	}
	refused("another study's report over a study's report", merged, "the report of study fake (summary.json", func() error {
		return writeReport([]string{other}, merged, out)
	})
	refused("compare into a study's report", merged, "a study's report (summary.json)", func() error { return compare(a, b, merged) })

	cmpDir := filepath.Join(root, "cmp")
	if err := compare(a, b, cmpDir); err != nil {
		t.Fatal(err)
	}
	if err := compare(b, a, cmpDir); err != nil {
		t.Errorf("a comparison again over a comparison: %v", err)
	}
	if c, err := readJSON[Comparison](filepath.Join(cmpDir, ComparisonFile)); err != nil || c == nil || c.Base != b || c.New != a || len(c.Cells) != 4 {
		t.Errorf("comparison.json: %+v, %v", c, err)
	}
	refused("study report into a comparison", cmpDir, "a comparison (comparison.json)", func() error {
		return writeReport([]string{a}, cmpDir, out)
	})
	refused("study run into a comparison", cmpDir, "a comparison (comparison.json)", func() error {
		_, err := fakeRunner(p, cmpDir).Run(context.Background())
		return err
	})

	// A comparison waits for no one: a study running in its --out holds the lock.
	lock, err := rundir.Acquire(cmpDir, "tierbench study run x.yaml --out "+cmpDir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	var busy *rundir.BusyError
	if err := compare(a, b, cmpDir); !errors.As(err, &busy) {
		t.Errorf("compare into a directory in use: %v", err)
	}
}
