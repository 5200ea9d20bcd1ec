package rundir

import (
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSetAside: an earlier run's files move whole into earlier/1, then earlier/2; what
// the new run does not write goes back on Restore, what it wrote stays.
func TestSetAside(t *testing.T) {
	dir := t.TempDir()
	if a, err := SetAside(dir, "result.json", "intervals.jsonl"); a != nil || err != nil {
		t.Fatalf("nothing to set aside: %v, %v", a, err)
	}
	write(t, filepath.Join(dir, "result.json"), "run 1")
	write(t, filepath.Join(dir, "intervals.jsonl"), "lines 1\n")
	write(t, filepath.Join(dir, "other.json"), "not a run file")
	a, err := SetAside(dir, "result.json", "intervals.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if a.To != filepath.Join(dir, "earlier", "1") || read(t, filepath.Join(a.To, "result.json")) != "run 1" ||
		read(t, filepath.Join(a.To, "intervals.jsonl")) != "lines 1\n" {
		t.Fatalf("set aside to %s", a.To)
	}
	if want := "the earlier run's result.json and intervals.jsonl are in " + a.To; a.String() != want {
		t.Errorf("%q, want %q", a.String(), want)
	}
	for _, n := range []string{"result.json", "intervals.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, n)); !os.IsNotExist(err) {
			t.Errorf("%s still in the run directory", n)
		}
	}
	// The new run writes result.json only (its intervals never came): the earlier
	// intervals stay aside with the earlier result, not beside the new one.
	write(t, filepath.Join(dir, "result.json"), "run 2")
	if err := a.Restore(); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(dir, "result.json")) != "run 2" || read(t, filepath.Join(a.To, "result.json")) != "run 1" ||
		read(t, filepath.Join(a.To, "intervals.jsonl")) != "lines 1\n" || !a.Kept() {
		t.Error("Restore moved files of a run that wrote one")
	}
	if _, err := os.Stat(filepath.Join(dir, "intervals.jsonl")); !os.IsNotExist(err) {
		t.Errorf("the earlier intervals.jsonl came back beside the new result.json: %v", err)
	}
	// A third run: earlier/2. It fails before writing anything: all goes back, and
	// earlier/2 with it.
	write(t, filepath.Join(dir, "intervals.jsonl"), "lines 2\n")
	b, err := SetAside(dir, "result.json", "intervals.jsonl")
	if err != nil || b.To != filepath.Join(dir, "earlier", "2") || len(b.Files) != 2 {
		t.Fatalf("third run: %+v, %v", b, err)
	}
	if err := b.Restore(); err != nil {
		t.Fatal(err)
	}
	if b.Kept() || read(t, filepath.Join(dir, "result.json")) != "run 2" || read(t, filepath.Join(dir, "intervals.jsonl")) != "lines 2\n" {
		t.Errorf("after a run that wrote nothing: kept %v", b.Files)
	}
	if _, err := os.Stat(b.To); !os.IsNotExist(err) {
		t.Errorf("%s left empty", b.To)
	}
	if _, err := os.Stat(a.To); err != nil {
		t.Errorf("earlier/1 went: %v", err)
	}
}
