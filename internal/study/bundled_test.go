package study

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestBundledStudiesValidate: every bundled study, at its own values and at each
// size, expands and every cell validates as its commands would; each has a quick
// size and the seed's; and Open finds it by name.
func TestBundledStudiesValidate(t *testing.T) {
	names := Bundled()
	for _, want := range []string{"san-storage", "buffer-size", "ssd-cache", "hybrid-placement", "oltp-flash", "cloud-volumes", "smoke"} {
		if !slices.Contains(names, want) {
			t.Errorf("no bundled study %s: %q", want, names)
		}
	}
	out := t.TempDir()
	for _, name := range names {
		f, err := Open(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if f.Name != name {
			t.Errorf("studies/%s.yaml is named %s", name, f.Name)
		}
		if !slices.Contains(f.SizeNames(), "quick") || name != "smoke" && !slices.Contains(f.SizeNames(), "seed") {
			t.Errorf("%s has sizes %q: want quick and seed", name, f.SizeNames())
		}
		for _, size := range append([]string{""}, f.SizeNames()...) {
			s, err := f.At(size)
			if err != nil {
				t.Errorf("%s --size %s: %v", name, size, err)
				continue
			}
			p, err := Expand(s)
			if err != nil {
				t.Errorf("%s --size %s: %v", name, size, err)
				continue
			}
			if err := p.Validate(context.Background(), out); err != nil {
				t.Errorf("%s --size %s: %v", name, size, err)
			}
			// A study with snapshot: true whose TPC-H cells load for themselves (their
			// load test is part of what TPC-H measures) is told so in its plan by
			// design; any other note is a mistake in the study file.
			notes := slices.DeleteFunc(slices.Clone(p.Notes), func(n string) bool {
				return strings.HasPrefix(n, "snapshot: ") && strings.Contains(n, "tpch has no load phase of its own")
			})
			if len(notes) > 0 {
				t.Errorf("%s --size %s: %q", name, size, notes)
			}
		}
	}
}
