package yamltext

import (
	"slices"
	"testing"
)

// TestProblems: each problem names the file, its line (none for the whole file) and
// its field (none at the top); past Max none is kept.
func TestProblems(t *testing.T) {
	p := &Problems{File: "mix.yaml", Max: 3}
	if p.Len() != 0 || p.List() != nil {
		t.Fatalf("a fresh collector holds %d problems, %q", p.Len(), p.List())
	}
	p.Add(4, Field(Item("tables", 1), "rows"), "%d is below 0", -2)
	p.Add(0, "", "empty: give a name")
	p.Add(7, "name", "missing")
	p.Add(9, "scale", "one too many")
	want := []string{"mix.yaml:4: tables[1].rows: -2 is below 0", "mix.yaml: empty: give a name", "mix.yaml:7: name: missing"}
	if got := p.List(); !slices.Equal(got, want) || p.Len() != 3 {
		t.Errorf("problems %q (%d), want %q", got, p.Len(), want)
	}
	got := p.List()
	got[0] = "changed"
	if p.List()[0] != want[0] {
		t.Error("List hands out the collector's own slice")
	}
	unbounded := &Problems{File: "f"}
	for range 25 {
		unbounded.Add(1, "", "x")
	}
	if unbounded.Len() != 25 {
		t.Errorf("Max 0 kept %d of 25 problems, want all", unbounded.Len())
	}
	if Field("", "name") != "name" {
		t.Errorf("Field at the top is %q, want name", Field("", "name"))
	}
}
