package bundle

import (
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
