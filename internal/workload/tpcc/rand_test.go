package tpcc

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestNURandBoundsAndSkew(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name    string
		a, x, y int
	}{
		{"C_LAST", 255, 0, 999}, {"C_ID", 1023, 1, 3000}, {"OL_I_ID", 8191, 1, 100000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 200000
			seen := map[int]int{}
			for i := 0; i < n; i++ {
				v := NURand(r, tc.a, 123%(tc.a+1), tc.x, tc.y)
				if v < tc.x || v > tc.y {
					t.Fatalf("NURand(%d, C, %d, %d) = %d, out of range", tc.a, tc.x, tc.y, v)
				}
				seen[v]++
			}
			if _, ok := seen[tc.x]; !ok && tc.y-tc.x < 5000 {
				t.Errorf("lowest value %d never drawn", tc.x)
			}
			// Non-uniform: the most frequent value is drawn far more often than the
			// uniform expectation.
			most := 0
			for _, c := range seen {
				most = max(most, c)
			}
			uniform := float64(n) / float64(tc.y-tc.x+1)
			if float64(most) < 3*uniform {
				t.Errorf("most frequent value drawn %d times, uniform would be %.1f: not skewed", most, uniform)
			}
		})
	}
}

func TestRunConstantsClause2161(t *testing.T) {
	for seed := int64(0); seed < 200; seed++ {
		load := loadConstants(seed)
		run := RunConstants(load, seed+1000)
		d := run.CLast - load.CLast
		if d < 0 {
			d = -d
		}
		if d < 65 || d > 119 || d == 96 || d == 112 {
			t.Fatalf("seed %d: C_LAST load %d run %d: delta %d breaks clause 2.1.6.1", seed, load.CLast, run.CLast, d)
		}
		if run.CLast < 0 || run.CLast > 255 || run.CID < 0 || run.CID > 1023 || run.OLIID < 0 || run.OLIID > 8191 {
			t.Fatalf("constants out of range: %+v", run)
		}
	}
}

func TestLastName(t *testing.T) {
	for n, want := range map[int]string{0: "BARBARBAR", 371: "PRICALLYOUGHT", 999: "EINGEINGEING", 40: "BARPRESBAR"} {
		if got := LastName(n); got != want {
			t.Errorf("LastName(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestDeckProportions(t *testing.T) {
	for _, tc := range []struct {
		name string
		mix  Mix
		size int
	}{
		{"default 45/43/4/4/4", MixDefault, 100},
		{"spec 23 cards", MixSpec23, 23},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDeck(tc.mix, rand.New(rand.NewPCG(3, 4)))
			if d.Size() != tc.size {
				t.Fatalf("deck of %d cards, want %d", d.Size(), tc.size)
			}
			// Over 10 whole decks every type appears exactly 10 times its cards, and so
			// within every single deck.
			got := map[string]int{}
			for i := 0; i < 10*d.Size(); i++ {
				got[d.Deal()]++
				if (i+1)%d.Size() == 0 {
					for j, op := range TxnNames {
						if got[op] != tc.mix[j]*(i+1)/d.Size() {
							t.Fatalf("after deck %d: %s dealt %d times, want %d", (i+1)/d.Size(), op, got[op], tc.mix[j]*(i+1)/d.Size())
						}
					}
				}
			}
		})
	}
	// Decks are shuffled: two passes differ.
	d := NewDeck(MixDefault, rand.New(rand.NewPCG(5, 6)))
	var first, second []string
	for range 100 {
		first = append(first, d.Deal())
	}
	for range 100 {
		second = append(second, d.Deal())
	}
	same := true
	for i := range first {
		same = same && first[i] == second[i]
	}
	if same {
		t.Error("two passes through the deck dealt the same order")
	}
	if _, err := ParseMix("50/50"); err == nil {
		t.Error("ParseMix accepted an unknown mix")
	}
}

func TestThinkTime(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	mean := 12 * time.Second
	var sum time.Duration
	const n = 100000
	for i := 0; i < n; i++ {
		v := thinkTime(r, mean)
		if v < 0 || v > 10*mean {
			t.Fatalf("think time %v outside [0, 10 x mean]", v)
		}
		sum += v
	}
	if avg := sum / n; avg < 11*time.Second || avg > 13*time.Second {
		t.Errorf("mean think time %v, want about %v (clause 5.2.5.4)", avg, mean)
	}
}
