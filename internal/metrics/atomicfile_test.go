package metrics

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"tierbench/internal/diskfull"
)

type fileDoc struct {
	Name string  `json:"name"`
	TPS  float64 `json:"tps"`
}

// TestJSONFileRoundTrip: what WriteJSONFile writes, ReadJSONFile reads back; a second
// write replaces the first whole and leaves no temporary file behind; the file is
// readable by others.
func TestJSONFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	for _, want := range []fileDoc{{"first", 1.5}, {"second", 2750.25}} {
		if err := WriteJSONFile(path, want); err != nil {
			t.Fatal(err)
		}
		got, err := ReadJSONFile[fileDoc](path)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil || *got != want {
			t.Fatalf("read back %+v, want %+v", got, want)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after two writes, want only result.json", len(entries))
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v (%v), want 0644", st.Mode().Perm(), err)
	}
}

func TestReadJSONFileMissingAndBroken(t *testing.T) {
	dir := t.TempDir()
	got, err := ReadJSONFile[fileDoc](filepath.Join(dir, "absent.json"))
	if got != nil || err != nil {
		t.Errorf("missing file: %v, %v; want nil, nil", got, err)
	}
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte(`{"name": "cut off`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = ReadJSONFile[fileDoc](broken)
	if got != nil || err == nil || !strings.Contains(err.Error(), broken) {
		t.Errorf("broken file: %v, %v; want an error naming %s", got, err, broken)
	}
}

func TestWriteJSONFileNamesFileAndCause(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no-such-dir", "result.json")
	err := WriteJSONFile(path, fileDoc{"x", 1})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("write into a missing directory: %v; want the path and that the directory does not exist", err)
	}
}

// TestWriteJSONFileFullDisk: a full disk is named as such, without the temporary
// file's name, and the file written before is left whole.
func TestWriteJSONFileFullDisk(t *testing.T) {
	dir := diskfull.Mount(t, 1<<20)
	path := filepath.Join(dir, "result.json")
	if err := WriteJSONFile(path, fileDoc{"earlier", 1}); err != nil {
		t.Fatal(err)
	}
	diskfull.Fill(t, dir)
	err := WriteJSONFile(path, fileDoc{strings.Repeat("x", 64<<10), 2})
	want := "write " + path + ": no space left on device (the disk is full: free some space and run again)"
	if err == nil || err.Error() != want || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("error %v, want %q", err, want)
	}
	if got, err := ReadJSONFile[fileDoc](path); err != nil || got == nil || *got != (fileDoc{"earlier", 1}) {
		t.Errorf("the earlier file: %+v, %v", got, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d entries, want result.json and the filler: a temporary file is left", len(entries))
	}
}
