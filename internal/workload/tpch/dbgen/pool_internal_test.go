package dbgen

import "testing"

func TestPoolParallelMatchesSequential(t *testing.T) {
	ds, err := loadDists()
	if err != nil {
		t.Fatal(err)
	}
	const size = 80 << 20
	g1, _ := newSentenceGen(ds)
	seqPool := sequentialPool(g1, size)
	defer seqPool.release()
	seq := seqPool.bytes()
	for _, n := range []int{2, 3, 5} {
		g2, _ := newSentenceGen(ds)
		pp := g2.fillPoolParallel(size, n)
		defer pp.release()
		if string(seq) != string(pp.bytes()) {
			t.Fatalf("parallel pool with %d segments differs from sequential", n)
		}
		for _, pc := range pp.parts[1:] {
			for o := pc.start - 300; o < pc.start+10; o++ {
				if string(pp.slice(o, 250)) != string(seq[o:o+250]) {
					t.Fatalf("slice(%d) across a piece boundary differs", o)
				}
			}
		}
	}
}

func TestPoolSpliceFallback(t *testing.T) {
	ds, err := loadDists()
	if err != nil {
		t.Fatal(err)
	}
	const size = 64 << 20
	g1, _ := newSentenceGen(ds)
	seqPool := sequentialPool(g1, size)
	defer seqPool.release()
	old := spliceWindow
	spliceWindow = 1 // no room to find a common sentence start
	defer func() { spliceWindow = old }()
	g2, _ := newSentenceGen(ds)
	pp := g2.fillPoolParallel(size, 2)
	defer pp.release()
	if len(pp.parts) != 1 {
		t.Fatalf("expected the sequential fallback, got %d parts", len(pp.parts))
	}
	if string(pp.bytes()) != string(seqPool.bytes()) {
		t.Fatal("fallback pool differs from sequential")
	}
}

func TestMulMod(t *testing.T) {
	vals := []int64{0, 1, 2, 16807, 1 << 30, rngModulus - 2, rngModulus - 1, 1234567890, 987654321}
	for _, a := range vals {
		for _, b := range vals {
			if got, want := mulMod(a, b), a*b%rngModulus; got != want {
				t.Errorf("mulMod(%d, %d) = %d, want %d", a, b, got, want)
			}
		}
	}
	x, y := int64(1), int64(48271)
	for i := 0; i < 100000; i++ {
		x, y = nextRand(x), nextRand(nextRand(y))
		if got, want := mulMod(x, y), x*y%rngModulus; got != want {
			t.Fatalf("mulMod(%d, %d) = %d, want %d", x, y, got, want)
		}
	}
}

// nthElementLoop is NthElement step by step, as speed_seed.c writes it.
func nthElementLoop(z, n int64) int64 {
	mult := int64(rngMult)
	for n > 0 {
		if n%2 != 0 {
			z = (mult * z) % rngModulus
		}
		n /= 2
		mult = (mult * mult) % rngModulus
	}
	return z
}

func TestNthElementFold(t *testing.T) {
	z := int64(1808217256)
	for i := 0; i < 200000; i++ {
		z = nextRand64(z)
		for n := int64(0); n < 8; n++ {
			if got, want := nthElement(z, n), nthElementLoop(z, n); got != want {
				t.Fatalf("nthElement(%d, %d) = %d, want %d", z, n, got, want)
			}
		}
	}
	for _, z := range []int64{-1 << 63, 1<<63 - 1, -1, 0, 1, rngModulus, -rngModulus} {
		for n := int64(0); n < 8; n++ {
			if got, want := nthElement(z, n), nthElementLoop(z, n); got != want {
				t.Errorf("nthElement(%d, %d) = %d, want %d", z, n, got, want)
			}
		}
	}
}
