package qgen

import "fmt"

// MaxSeed is the largest seed that is its own generator state: Park-Miller's
// states are 1..2^31-2. The spec's seeds, timestamps mmddhhmmss (Clause 2.1.3.3),
// run from 0101000000 to 1231235959 and so all lie below it.
const MaxSeed = pmModulus - 1

// SeedError says that a seed cannot seed qgen's generator.
type SeedError struct {
	Seed int64
	// Reason says what is wrong with it: "a multiple of 2^31-1 (2147483647), which
	// holds the Park-Miller generator at 0 forever".
	Reason string
}

func (e *SeedError) Error() string {
	return fmt.Sprintf("qgen: seed %d is %s: give a seed from 1 to %d, such as the spec's end-of-load timestamp mmddhhmmss (0101000000 is 1 January, 00:00:00)",
		e.Seed, e.Reason, MaxSeed)
}

// seedState is the generator state qgen's -r seed gives stream 0. qgen stores the
// seed as it is, first adding 2^31-1 once when it is negative; every draw comes from
// a successor of that value formed as seed*16807 mod 2^31-1, so a seed and its
// remainder modulo 2^31-1 draw the same parameters (the remainder also keeps the
// product inside 64 bits, where qgen's own arithmetic would overflow for seeds
// above 2^63/16807).
//
// A state of 0 is Park-Miller's one fixed point: every draw is then the bottom of
// its range, and Q7's and Q12's "draw again until the two differ" never ends. qgen
// does not guard against it (`qgen -r 0` and `qgen -r 2147483647` loop forever;
// without -r it seeds from the clock, which is never 0), so such seeds are refused
// here, as are seeds below -(2^31-2), which qgen's single correction leaves
// negative and whose draws fall outside their ranges.
func seedState(seed int64) (int64, error) {
	if seed < 0 {
		seed += pmModulus
		if seed <= 0 {
			return 0, &SeedError{Seed: seed - pmModulus, Reason: fmt.Sprintf("below -%d, which qgen cannot move into the generator's range", MaxSeed)}
		}
	}
	state := seed % pmModulus
	if state == 0 {
		reason := "zero"
		if seed != 0 {
			reason = fmt.Sprintf("a multiple of 2^31-1 (%d)", int64(pmModulus))
		}
		return 0, &SeedError{Seed: seed, Reason: reason + ", which holds the Park-Miller generator at 0 forever"}
	}
	return state, nil
}

// CheckSeed reports whether seed can seed the generator (a *SeedError if not):
// Params, FormatParams and Stream refuse the same seeds.
func CheckSeed(seed int64) error {
	_, err := seedState(seed)
	return err
}
