package params

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// testSet has a parameter of every kind.
type testSet struct {
	set                *Set
	name, users        string
	bytes              int64
	mode               string
	on                 bool
	n                  int
	seed, anySeed      int64
	rate               float64
	wait               time.Duration
	profiles, settings []string
}

func newTestSet() *testSet {
	t := &testSet{set: NewSet("test")}
	s := t.set
	s.String(&t.name, "name", "x", String, "a name")
	s.Size(&t.bytes, "buffer", "", "a size")
	s.String(&t.users, "users", "1", Users, "users")
	s.Enum(&t.mode, "mode", "auto", []string{"auto", "thread"}, "a mode")
	s.Bool(&t.on, "on", false, "a switch")
	s.Int(&t.n, "n", 3, "a number")
	s.Seed(&t.seed, "seed", 0, 0, 2147483646, "a seed")
	s.AnySeed(&t.anySeed, "gen-seed", 1, "any seed")
	s.Float(&t.rate, "rate", 0.5, "a rate")
	s.Duration(&t.wait, "wait", time.Minute, "a wait")
	s.List(&t.profiles, "profiles", "files")
	s.Array(&t.settings, "set", "settings")
	return t
}

// TestRoundTrip: every kind's value, set on the command line, comes back as text
// that sets a fresh set to the same value, by SetValues and by Args.
func TestRoundTrip(t *testing.T) {
	a := newTestSet()
	cmdline := []string{"--name", "n-1", "--buffer", "2GiB", "--users", "1,2,4", "--mode", "thread", "--on",
		"--n", "010", "--seed", "0101000000", "--gen-seed", "-7", "--rate", "0.1", "--wait", "90s",
		"--profiles", "a.yaml,b.yaml", "--profiles", `"c,d.yaml"`, "--set", "work_mem=64MB", "--set", "x=a,b"}
	if err := a.set.FlagSet().Parse(cmdline); err != nil {
		t.Fatal(err)
	}
	if a.bytes != 2<<30 || a.n != 10 || a.seed != 101000000 || a.anySeed != -7 || !a.on || a.wait != 90*time.Second ||
		!slices.Equal(a.profiles, []string{"a.yaml", "b.yaml", "c,d.yaml"}) || !slices.Equal(a.settings, []string{"work_mem=64MB", "x=a,b"}) {
		t.Fatalf("parsed %+v", a)
	}
	if len(a.set.Changed()) != len(a.set.Params()) {
		t.Fatalf("%d changed of %d", len(a.set.Changed()), len(a.set.Params()))
	}
	b := newTestSet()
	for name, vals := range a.set.Values() {
		if err := b.set.SetValues(name, vals); err != nil {
			t.Fatalf("%s %q: %v", name, vals, err)
		}
	}
	c := newTestSet()
	if err := c.set.FlagSet().Parse(a.set.Args()); err != nil {
		t.Fatalf("args %q: %v", a.set.Args(), err)
	}
	for _, p := range a.set.Params() {
		for _, other := range []*testSet{b, c} {
			q := other.set.Lookup(p.Name)
			if !slices.Equal(q.Values(), p.Values()) || !q.Changed() {
				t.Errorf("%s: %q came back as %q (changed %v)", p.Name, p.Values(), q.Values(), q.Changed())
			}
		}
	}
}

func TestErrorsNameTheFlag(t *testing.T) {
	s := newTestSet().set
	for _, tc := range []struct {
		name  string
		value []string
		want  string
	}{
		{"n", []string{"0x4"}, `invalid argument "0x4" for "--n" flag: give a decimal whole number, such as 4`},
		{"seed", []string{"2147483647"}, `invalid argument "2147483647" for "--seed" flag: a seed is a decimal whole number from 0 to 2147483646`},
		{"wait", []string{"5 minutes"}, `invalid argument "5 minutes" for "--wait" flag: time: `},
		{"on", []string{"maybe"}, `invalid argument "maybe" for "--on" flag`},
		// a value whose error names the flag itself is not wrapped again
		{"buffer", []string{"huge"}, `--buffer "huge" is not a size: give bytes with an optional unit, such as 256MB or 2GiB`},
		{"rate", []string{"1", "2"}, "--rate takes one value, not 2 (1, 2)"},
		{"speed", []string{"1"}, `unknown parameter "speed" of test: valid parameters are name, buffer, users, mode, on, n, seed, gen-seed, rate, wait, profiles, set`},
	} {
		err := s.SetValues(tc.name, tc.value)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("--%s %q: %v, want %q", tc.name, tc.value, err, tc.want)
		}
	}
	// A users sweep given as a list is the command line's comma-separated text.
	if err := s.SetValues("users", []string{"1", "8", "64"}); err != nil || s.Lookup("users").Values()[0] != "1,8,64" {
		t.Errorf("users: %v %q", err, s.Lookup("users").Values())
	}
}

// TestParsedOnce: a parsed parameter holds its typed value from the moment it is set,
// keeps the text it was given (a study's command line shows 2GiB), keeps the old value
// when the text does not parse, and its error reaches a command line without pflag's
// wrapping (FlagError), which other errors keep.
func TestParsedOnce(t *testing.T) {
	ts := newTestSet()
	if ts.bytes != 0 || ts.set.Lookup("buffer").Default != "" {
		t.Fatalf("default: %d bytes, text %q", ts.bytes, ts.set.Lookup("buffer").Default)
	}
	if err := ts.set.Set("buffer", "1.5G"); err != nil || ts.bytes != 3<<29 || ts.set.Lookup("buffer").Values()[0] != "1.5G" {
		t.Fatalf("1.5G: %v, %d bytes, text %q", err, ts.bytes, ts.set.Lookup("buffer").Values())
	}
	err := ts.set.FlagSet().Parse([]string{"--buffer", "12XB"})
	if ts.bytes != 3<<29 || ts.set.Lookup("buffer").Values()[0] != "1.5G" {
		t.Errorf("a refused value changed the parameter: %d bytes, text %q", ts.bytes, ts.set.Lookup("buffer").Values())
	}
	if got := FlagError(err); got == nil || got.Error() != `--buffer "12XB" is not a size: give bytes with an optional unit, such as 256MB or 2GiB` {
		t.Errorf("command line error %v", got)
	}
	err = ts.set.FlagSet().Parse([]string{"--n", "x"})
	if got := FlagError(err); got == nil || got.Error() != `invalid argument "x" for "--n" flag: give a decimal whole number, such as 4` {
		t.Errorf("other errors keep pflag's words: %v", got)
	}
	if err := ts.set.Set("buffer", ""); err != nil || ts.bytes != 0 {
		t.Errorf("empty: %v, %d bytes; want 0, not given", err, ts.bytes)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "--bad") {
			t.Errorf("a default that does not parse: %v, want a panic naming --bad", r)
		}
	}()
	var n int64
	ts.set.Size(&n, "bad", "lots", "a size whose default is not one")
}

func TestRequiredAndDefaults(t *testing.T) {
	ts := newTestSet()
	ts.set.Lookup("name").Require()
	if err := ts.set.CheckRequired(); err == nil || err.Error() != `required flag(s) "name" not set` {
		t.Errorf("required: %v", err)
	}
	if p := ts.set.Lookup("wait"); p.Default != "1m0s" || p.Kind != Duration || p.Changed() {
		t.Errorf("wait: default %q kind %s changed %v", p.Default, p.Kind, p.Changed())
	}
	if err := ts.set.Set("name", "y"); err != nil || ts.set.CheckRequired() != nil || len(ts.set.Args()) != 1 || ts.set.Args()[0] != "--name=y" {
		t.Errorf("after setting name: %v, args %q", ts.set.CheckRequired(), ts.set.Args())
	}
	// The flags are shared with a command's flag set: what it parses, the set sees.
	fs := pflag.NewFlagSet("cmd", pflag.ContinueOnError)
	fs.AddFlagSet(ts.set.FlagSet())
	if err := fs.Parse([]string{"--n", "7"}); err != nil || ts.n != 7 || !ts.set.Lookup("n").Changed() {
		t.Errorf("via a command's flags: n %d changed %v (%v)", ts.n, ts.set.Lookup("n").Changed(), err)
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"1048576", 1 << 20},
		{"256MB", 256 << 20},
		{"2GiB", 2 << 30},
		{"1g", 1 << 30},
		{"512 KiB", 512 << 10},
		{"1.5G", 3 << 29},
	} {
		got, err := ParseSize("--buffer", tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "lots", "-5MB", "12XB"} {
		if _, err := ParseSize("--buffer", bad); err == nil || !strings.Contains(err.Error(), "--buffer") {
			t.Errorf("ParseSize(%q) error = %v, want one naming --buffer", bad, err)
		}
	}
}
