package bundle

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"testing"
	"testing/fstest"
)

func TestSet(t *testing.T) {
	s := Set{FS: fstest.MapFS{
		"d/b.yaml": {Data: []byte("b: 1\n")},
		"d/a.yaml": {Data: []byte("a: 1\n")},
		"e/c.yaml": {Data: []byte("c: 1\n")},
	}, Dir: "d"}
	if got := s.Names(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Names %v, want [a b]", got)
	}
	if data, err := s.Source("b"); err != nil || string(data) != "b: 1\n" {
		t.Errorf("Source(b) %q, %v", data, err)
	}
	if _, err := s.Source("c"); err == nil {
		t.Error("Source(c) read a file of another directory")
	}
}

func TestIsPath(t *testing.T) {
	for in, want := range map[string]bool{
		"policy": false, "hybrid-placement": false, "my.yaml": true, "my.yml": true,
		"./policy": true, "dir/policy": true, "policy.json": false,
	} {
		if got := IsPath(in); got != want {
			t.Errorf("IsPath(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestRead: a bundled name wins over a file of that name in the working directory, a
// path is always a file, and a name that is neither is fs.ErrNotExist.
func TestRead(t *testing.T) {
	t.Chdir(t.TempDir())
	s := Set{FS: fstest.MapFS{"d/a.yaml": {Data: []byte("bundled\n")}}, Dir: "d"}
	if err := os.WriteFile("a", []byte("file a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("a.yaml", []byte("file a.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in, data string
		fromSet  bool
	}{{"a", "bundled\n", true}, {"a.yaml", "file a.yaml\n", false}, {"./a", "file a\n", false}} {
		data, fromSet, err := s.Read(tc.in)
		if err != nil || string(data) != tc.data || fromSet != tc.fromSet {
			t.Errorf("Read(%q) = %q, %v, %v; want %q, %v", tc.in, data, fromSet, err, tc.data, tc.fromSet)
		}
	}
	if _, fromSet, err := s.Read("b"); !errors.Is(err, fs.ErrNotExist) || fromSet {
		t.Errorf("Read(b) = %v, %v; want fs.ErrNotExist", fromSet, err)
	}
}
