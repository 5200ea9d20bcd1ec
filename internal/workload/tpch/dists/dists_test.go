package dists

import "testing"

func TestParse(t *testing.T) {
	d, err := Parse([]byte("# c\nBEGIN x\nCOUNT|3\na|1\nb b|-1 # adjust\nc|5\nEND x\nbegin y\ncount|1\nz|1\nend y\n"))
	if err != nil {
		t.Fatal(err)
	}
	x := d["x"]
	// Weights 1, -1, 5 accumulate to 1, 0, 5.
	if len(x.Words) != 3 || x.Words[1] != "b b" || x.Cum[0] != 1 || x.Cum[1] != 0 || x.Max() != 5 {
		t.Errorf("x = %+v", x)
	}
	if x.Index(1) != 0 || x.Index(2) != 2 || x.Index(5) != 2 {
		t.Errorf("Index(1,2,5) = %d,%d,%d; want 0,2,2", x.Index(1), x.Index(2), x.Index(5))
	}
	if len(d["y"].Words) != 1 {
		t.Errorf("y = %+v", d["y"])
	}
	for name, bad := range map[string]string{
		"count mismatch": "begin x\ncount|2\na|1\nend x\n",
		"no END":         "begin x\ncount|1\na|1\n",
		"empty":          "begin x\nend x\n",
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%s: parsed without error", name)
		}
	}
}

func TestEmbeddedFile(t *testing.T) {
	// Figures of the kit's dists.dss: 25 nations, 5 regions, 92 colors, 150 part types.
	got, err := Get("nations", "REGIONS", "colors", "p_types", "Q13a")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{25, 5, 92, 150, 4} {
		if n := len(got[i].Words); n != want {
			t.Errorf("%s has %d members, want %d", got[i].Name, n, want)
		}
	}
	if _, err := Get("no-such-list"); err == nil {
		t.Error("a missing distribution was not reported")
	}
}
