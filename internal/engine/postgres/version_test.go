package postgres

import "testing"

func TestParseMajor(t *testing.T) {
	for in, want := range map[string]int{
		"postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n": 15,
		"postgres (PostgreSQL) 18beta1\n":                        18,
	} {
		if got, err := parseMajor(in); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := parseMajor("garbage"); err == nil {
		t.Error("garbage: no error")
	}
}
