package tpch

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"
	"time"

	"tierbench/internal/params"
	"tierbench/internal/workload/tpch/qgen"
)

// qgenRun runs tpch qgen with the command line args and returns its stdout and stderr.
func qgenRun(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	q := NewQgenSettings()
	if err := q.Params().FlagSet().Parse(args); err != nil {
		return "", "", params.FlagError(err)
	}
	var out, errOut bytes.Buffer
	err := q.Write(&out, &errOut)
	return out.String(), errOut.String(), err
}

// TestQgenSeeds: a seed with a leading zero is the decimal seed, and without --seed
// tpch qgen seeds from the clock as qgen does without -r (in the spec's form,
// mmddhhmmss), says which seed it took, and that seed draws the same parameters.
func TestQgenSeeds(t *testing.T) {
	want, err := qgen.FormatParams(1, 923101500)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := qgenRun(t, "--sf", "1", "--seed", "0923101500", "--params")
	if err != nil || got != want {
		t.Fatalf("--seed 0923101500: %v\n%s\nwant the parameters of seed 923101500:\n%s", err, got, want)
	}

	for _, args := range [][]string{{"--params"}, {"--params", "--seed", "0"}} {
		before := time.Now()
		out, stderr, err := qgenRun(t, args...)
		after := time.Now()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		m := regexp.MustCompile(`using seed (\d+), the current time as mmddhhmmss`).FindStringSubmatch(stderr)
		if m == nil {
			t.Fatalf("%v: stderr does not say which seed was used: %q", args, stderr)
		}
		seed, _ := strconv.ParseInt(m[1], 10, 64)
		if lo, hi := SeedFromTime(before), SeedFromTime(after); lo <= hi && (seed < lo || seed > hi) {
			t.Errorf("%v: seed %d is not the clock's mmddhhmmss (%d..%d)", args, seed, lo, hi)
		}
		again, _, err := qgenRun(t, "--params", "--seed", m[1])
		if err != nil || again != out {
			t.Errorf("%v: --seed %s does not repeat the parameters (%v)", args, m[1], err)
		}
	}
}
