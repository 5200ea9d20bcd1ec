package qgen

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSeedState checks which seeds qgen's generator can start from and the state
// each gives stream 0. qgen stores -r as it is (a negative seed moved up by
// 2^31-1 once) and forms every draw as state*16807 mod 2^31-1, so a seed and its
// remainder draw alike; 0, a multiple of 2^31-1 or a seed qgen's correction leaves
// at or below 0 would keep the state at 0, where qgen itself loops forever.
func TestSeedState(t *testing.T) {
	for _, tc := range []struct {
		seed      int64
		want      int64
		wantError string // "" when the seed is usable
	}{
		{1, 1, ""},
		{101000000, 101000000, ""}, // CMD_QGEN's first seed, 0101000000
		{1231235959, 1231235959, ""},
		{2147483646, 2147483646, ""},
		{2147483648, 1, ""},
		{3*2147483647 + 5, 5, ""},
		{-5, 2147483642, ""},
		{-2147483646, 1, ""},
		{0, 0, "seed 0 is zero"},
		{2147483647, 0, "a multiple of 2^31-1"},
		{2 * 2147483647, 0, "a multiple of 2^31-1"},
		{-2147483647, 0, "below -2147483646"},
		{-9223372036854775808, 0, "below -2147483646"},
	} {
		got, err := seedState(tc.seed)
		if tc.wantError == "" {
			if err != nil || got != tc.want {
				t.Errorf("seedState(%d) = %d, %v; want %d", tc.seed, got, err, tc.want)
			}
			continue
		}
		var se *SeedError
		if !errors.As(err, &se) || se.Seed != tc.seed || !strings.Contains(err.Error(), tc.wantError) || !strings.Contains(err.Error(), "from 1 to 2147483646") {
			t.Errorf("seedState(%d) error %v: want a SeedError naming the seed, %q and the valid range", tc.seed, err, tc.wantError)
		}
	}
}

// TestSeedsEqualModulo2p31m1: qgen's first step turns seed s into s*16807 mod
// 2^31-1, the same for s and s + 2^31-1, so both log the same parameters.
func TestSeedsEqualModulo2p31m1(t *testing.T) {
	a, err := FormatParams(1, 12345)
	if err != nil {
		t.Fatal(err)
	}
	b, err := FormatParams(1, 12345+pmModulus)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("seeds 12345 and 12345 + 2^31-1 differ:\n%s\n%s", a, b)
	}
}

// TestStuckSeedsAreRefused: every entry point returns a SeedError for the seeds
// that hold the generator at 0. Before the check, Q7's draw-until-different loop
// spun forever on them, so each call runs under a guard that reports a hang.
func TestStuckSeedsAreRefused(t *testing.T) {
	calls := map[string]func(seed int64) error{
		"Params(q7)":   func(seed int64) error { _, err := Params(1, seed, 7); return err },
		"FormatParams": func(seed int64) error { _, err := FormatParams(1, seed); return err },
		"Stream":       func(seed int64) error { _, err := Stream("postgres", 1, seed, 0, false); return err },
	}
	for name, call := range calls {
		for _, seed := range []int64{0, pmModulus, 5 * pmModulus, -pmModulus} {
			done := make(chan error, 1)
			go func() { done <- call(seed) }()
			select {
			case err := <-done:
				var se *SeedError
				if !errors.As(err, &se) {
					t.Errorf("%s with seed %d: error %v, want a SeedError", name, seed, err)
				}
			case <-time.After(30 * time.Second): // the call takes microseconds; this only catches a hang
				t.Fatalf("%s with seed %d did not return: the generator is stuck", name, seed)
			}
		}
	}
	// The qualification parameters use no seed, as qgen -d ignores -r.
	if _, err := Stream("postgres", 1, 0, 0, true); err != nil {
		t.Errorf("Stream with default parameters and seed 0: %v", err)
	}
}
