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
