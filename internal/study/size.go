package study

import (
	"fmt"
	"slices"
	"strings"
)

// Study is a study file at one size: what Expand turns into cells.
type Study struct {
	File *File
	// Size is the size chosen ("" for the file's own values) and SizeDescription
	// what it says of itself.
	Size, SizeDescription string
	// Body is the file's body with the size applied, defaults filled in.
	Body
}

// SizeNames lists the file's sizes in its order.
func (f *File) SizeNames() []string {
	names := make([]string, len(f.Sizes))
	for i, s := range f.Sizes {
		names[i] = s.Name
	}
	return names
}

// At is the study at size ("" for the file's own values): the size's params are
// merged over the study's by name, its factors replace the study's of the same name
// (new ones are added), and every other field it gives replaces the study's.
func (f *File) At(size string) (*Study, error) {
	s := &Study{File: f, Body: f.Body}
	s.Params, s.Factors = slices.Clone(f.Params), slices.Clone(f.Factors)
	if size != "" {
		i := slices.IndexFunc(f.Sizes, func(z Size) bool { return z.Name == size })
		if i < 0 {
			valid := "it has none"
			if len(f.Sizes) > 0 {
				valid = "valid sizes are " + strings.Join(f.SizeNames(), ", ")
			}
			return nil, fmt.Errorf("--size %s: %s has no such size: %s", size, f.Path, valid)
		}
		z := f.Sizes[i]
		s.Size, s.SizeDescription = z.Name, z.Description
		s.Params = mergeSettings(s.Params, z.Params)
		for _, fc := range z.Factors {
			if j := slices.IndexFunc(s.Factors, func(g Factor) bool { return g.Name == fc.Name }); j >= 0 {
				s.Factors[j] = fc
			} else {
				s.Factors = append(s.Factors, fc)
			}
		}
		g := z.given
		if g["factors"] {
			s.FactorsPos = z.FactorsPos
		}
		if g["zip"] {
			s.Zip = z.Zip
		}
		if g["exclude"] {
			s.Exclude = z.Exclude
		}
		if g["baseline"] {
			s.Baseline = z.Baseline
		}
		if g["repetitions"] {
			s.Repetitions = z.Repetitions
		}
		if g["order"] {
			s.Order = z.Order
		}
		if g["seed"] {
			s.Seed = z.Seed
		}
		if g["timeout"] {
			s.Timeout = z.Timeout
		}
		if g["expect"] {
			s.Expect = z.Expect
		}
		if g["snapshot"] {
			s.Snapshot, s.SnapshotPos = z.Snapshot, z.SnapshotPos
		}
	}
	if s.Repetitions == 0 {
		s.Repetitions = 1
	}
	if s.Order == "" {
		s.Order = OrderFixed
	}
	if s.Seed == 0 && !s.given["seed"] {
		s.Seed = 1
	}
	return s, nil
}

// mergeSettings is base with over's settings replacing those of the same name, new
// ones added in over's order.
func mergeSettings(base, over []Setting) []Setting {
	out := slices.Clone(base)
	for _, o := range over {
		if i := slices.IndexFunc(out, func(s Setting) bool { return s.Name == o.Name }); i >= 0 {
			out[i] = o
		} else {
			out = append(out, o)
		}
	}
	return out
}
