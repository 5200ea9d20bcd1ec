package postmark

import "testing"

// The C++ standard fixes std::mt19937's output: default-seeded (5489, seeded as
// seedStandard does), its 10000th value is 4123659995 ([rand.predef]). The first value
// for that seed, 3499211612, is the one the 2002 reference code's test prints first.
func TestMT19937StandardValues(t *testing.T) {
	var g mt19937
	g.seedStandard(5489)
	if got := g.uint32(); got != 3499211612 {
		t.Fatalf("first output %d, want 3499211612", got)
	}
	var v uint32
	for i := 2; i <= 10000; i++ {
		v = g.uint32()
	}
	if v != 4123659995 {
		t.Fatalf("10000th output %d, want 4123659995 (C++ [rand.predef])", v)
	}
}

// seedPostmark's state, word by word from the definition: the high half of each word
// from one LCG step and the low half from the next.
func TestSeedPostmark(t *testing.T) {
	var g mt19937
	g.seedPostmark(42)
	// By hand: x0 = 42; x1 = 69069*42+1 = 2900899; x2 = 69069*2900899+1 mod 2^32.
	x1 := uint32(2900899)
	x2 := 69069*x1 + 1
	want0 := uint32(42)&0xffff0000 | (x1&0xffff0000)>>16
	want1 := x2&0xffff0000 | ((69069*x2+1)&0xffff0000)>>16
	if g.state[0] != want0 || g.state[1] != want1 {
		t.Fatalf("state[0..1] = %#x %#x, want %#x %#x", g.state[0], g.state[1], want0, want1)
	}
	if want0 != 0x2c {
		t.Fatalf("hand value: %#x", want0)
	}
}

func TestRndDrawsOnlyForPositiveRange(t *testing.T) {
	var a, b mt19937
	a.seedPostmark(7)
	b.seedPostmark(7)
	if a.rnd(0) != 0 || a.rnd(-3) != 0 {
		t.Fatal("rnd of a non-positive range must be 0")
	}
	// No number was drawn: both generators are still in step.
	if x, y := a.rnd(1000), b.rnd(1000); x != y {
		t.Fatalf("rnd(0) consumed a number: %d vs %d", x, y)
	}
	for range 1000 {
		if v := a.rnd(10); v < 0 || v >= 10 {
			t.Fatalf("rnd(10) = %d", v)
		}
	}
}

// Skipping n numbers leaves the generator where drawing them would, and drawn counts
// both.
func TestDiscard(t *testing.T) {
	for _, n := range []int{0, 1, 623, 624, 625, 5000, 3 * mtN} {
		var drew, skipped mt19937
		drew.seedPostmark(42)
		skipped.seedPostmark(42)
		drew.uint32() // start mid-state, as after a first number
		skipped.uint32()
		for range n {
			drew.uint32()
		}
		skipped.discard(n)
		if a, b := drew.uint32(), skipped.uint32(); a != b {
			t.Fatalf("after %d: drawn %d, skipped %d", n, a, b)
		}
		if drew.drawn() != int64(n+2) || skipped.drawn() != int64(n+2) {
			t.Fatalf("after %d: drawn counts %d and %d, want %d", n, drew.drawn(), skipped.drawn(), n+2)
		}
	}
}
