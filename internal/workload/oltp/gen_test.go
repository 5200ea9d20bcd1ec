package oltp

import (
	"math"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"

	"tierbench/internal/engine"
)

func TestZipfianSkew(t *testing.T) {
	const n, draws = 1000, 400_000
	for _, theta := range []float64{0.2, 0.5, 0.8, 0.99, 1, 1.5} {
		z := newZipfian(1, n, theta, false)
		r := newRNG(1, "zipf", theta)
		counts := make([]int, n+1)
		for range draws {
			v := z.draw(r)
			if v < 1 || v > n {
				t.Fatalf("theta %v: %d outside 1..%d", theta, v, n)
			}
			counts[v]++
		}
		// P(k) = k^-theta / zeta(n, theta).
		zn := zeta(n, theta)
		for _, k := range []int{1, 2, 3, 4, 10, 100} {
			want := math.Pow(float64(k), -theta) / zn * draws
			if got := float64(counts[k]); math.Abs(got-want) > 5*math.Sqrt(want)+0.01*want {
				t.Errorf("theta %v: value %d drawn %v times, want %.0f", theta, k, got, want)
			}
		}
		// The top 10% of values get the share the distribution gives them.
		var top float64
		for k := 1; k <= n/10; k++ {
			top += float64(counts[k])
		}
		var wantTop float64
		for k := 1; k <= n/10; k++ {
			wantTop += math.Pow(float64(k), -theta) / zn
		}
		if math.Abs(top/draws-wantTop) > 0.02 {
			t.Errorf("theta %v: top 10%% drew %.3f, want %.3f", theta, top/draws, wantTop)
		}
	}
	rev := newZipfian(1, 100, 0.99, true)
	r := newRNG(1, "rev")
	hits := 0
	for range 10000 {
		if rev.draw(r) == 100 {
			hits++
		}
	}
	if hits < 1500 { // P(rank 0) = 1/zeta(100, 0.99), about 0.19
		t.Errorf("reverse zipfian drew the newest value %d times in 10000", hits)
	}
}

// zeta is the sum of 1/i^theta for i in 1..n: the zipfian's normalisation.
func zeta(n int64, theta float64) float64 {
	var s float64
	for i := int64(1); i <= n; i++ {
		s += math.Pow(float64(i), -theta)
	}
	return s
}

func TestNURand(t *testing.T) {
	// TPC-C's C_ID: NURand(1023, 1, 3000), C fixed.
	g := nurand{a: 1023, c: 259, lo: 1, hi: 3000}
	r := newRNG(7, "nurand")
	counts := map[int64]int{}
	for range 300_000 {
		v := g.draw(r)
		if v < 1 || v > 3000 {
			t.Fatalf("NURand gave %d outside 1..3000", v)
		}
		counts[v]++
	}
	if len(counts) < 2900 {
		t.Errorf("NURand hit only %d of 3000 values", len(counts))
	}
	// Hand-computed: with A=1023 | x, values whose (v-1-C) mod 3000 has many one bits
	// below 1024 are favoured; the most frequent value is far above the uniform 100.
	maxCount := 0
	for _, c := range counts {
		maxCount = max(maxCount, c)
	}
	if maxCount < 300 {
		t.Errorf("NURand looks uniform: the most frequent value drawn %d times", maxCount)
	}
	// The formula itself on fixed draws: ((a | x) + C) % (y-x+1) + x.
	if got := (((int64(5) | int64(3000)) + 259) % 3000) + 1; got != 265 {
		t.Errorf("hand-computed NURand = %d", got)
	}
}

func TestSequences(t *testing.T) {
	r := newRNG(1)
	for _, tc := range []struct {
		g    seqLoad
		want string
	}{
		{seqLoad{start: 1, divide: 1}, "1 2 3 4 5 6 7"},
		{seqLoad{start: 1, divide: 3}, "1 1 1 2 2 2 3"},
		{seqLoad{start: 1, divide: 1, cycle: 3}, "1 2 3 1 2 3 1"},
		{seqLoad{start: 10, divide: 2, cycle: 2}, "10 10 11 11 10 10 11"},
	} {
		var b []byte
		for row := int64(1); row <= 7; row++ {
			if row > 1 {
				b = append(b, ' ')
			}
			b = tc.g.append(b, r, row)
		}
		if string(b) != tc.want {
			t.Errorf("%+v: %s, want %s", tc.g, b, tc.want)
		}
	}
	var next atomic.Int64
	next.Store(41)
	g := seqRun{next: &next}
	if a, b := g.value(r), g.value(r); a != int64(42) || b != int64(43) {
		t.Errorf("run-time sequence gave %v, %v after 41", a, b)
	}
}

func TestTextAndOthers(t *testing.T) {
	r := newRNG(3)
	spec := &ValueSpec{Pattern: `AB-##-@@-^^-**-\#`, Prefix: "x", Suffix: "%"}
	re := regexp.MustCompile(`^xAB-[0-9]{2}-[a-z]{2}-[A-Z]{2}-[a-z0-9]{2}-#%$`)
	for range 100 {
		if v := newText(spec).value(r).(string); !re.MatchString(v) {
			t.Fatalf("pattern gave %q", v)
		}
	}
	free := newText(&ValueSpec{MinLen: 3, MaxLen: 5})
	for range 100 {
		if v := free.value(r).(string); len(v) < 3 || len(v) > 5 {
			t.Fatalf("min/max length gave %q", v)
		}
	}
	w := wordsGen{lo: 2, n: 2}
	for range 100 {
		v := w.value(r).(string)
		if n := len(regexp.MustCompile(` `).FindAllString(v, -1)) + 1; n < 2 || n > 3 {
			t.Fatalf("words gave %q", v)
		}
	}
	u := uniformFloat{lo: 1, hi: 2, scale: 100, decimals: 2}
	for range 100 {
		b := u.append(nil, r, 0)
		f, _ := strconv.ParseFloat(string(b), 64)
		if f < 1 || f > 2 || !regexp.MustCompile(`^\d\.\d\d$`).Match(b) {
			t.Fatalf("uniform float gave %s", b)
		}
	}
	ch := newChoice(&ValueSpec{Values: []any{"a", "b"}, Weights: []float64{9, 1}})
	as := 0
	for range 10000 {
		if ch.value(r) == "a" {
			as++
		}
	}
	if as < 8800 || as > 9200 {
		t.Errorf("choice with weights 9:1 drew a %d times in 10000", as)
	}
}

func TestBindSQL(t *testing.T) {
	pg := &engine.Dialect{Name: "postgres", Param: func(n int) string { return "$" + strconv.Itoa(n) }}
	q := &engine.Dialect{Name: "mysql", Param: func(int) string { return "?" }}
	src := "SELECT a::text, ':skip', \"c:x\" FROM t WHERE a = :x AND b > :y -- :comment\n OR c = :x"
	got, args, err := bindSQL(pg, src)
	if err != nil || got != "SELECT a::text, ':skip', \"c:x\" FROM t WHERE a = $1 AND b > $2 -- :comment\n OR c = $1" || len(args) != 2 {
		t.Errorf("postgres: %q %v %v", got, args, err)
	}
	got, args, err = bindSQL(q, src)
	if err != nil || got != "SELECT a::text, ':skip', \"c:x\" FROM t WHERE a = ? AND b > ? -- :comment\n OR c = ?" || len(args) != 3 || args[2] != "x" {
		t.Errorf("mysql: %q %v %v", got, args, err)
	}
	if _, _, err := bindSQL(q, "SELECT 'open"); err == nil {
		t.Error("an unterminated quote was accepted")
	}
}

func TestTablesIn(t *testing.T) {
	for q, want := range map[string]string{
		"SELECT a FROM t1 JOIN t2 ON x WHERE EXTRACT(YEAR FROM d) = 1":      "t1 t2",
		"INSERT INTO t3 (a) VALUES (:a)":                                    "t3",
		"UPDATE t4 SET a = 'from x' WHERE id IN (SELECT id FROM t5)":        "t4",
		"DELETE FROM t6 WHERE id = :id":                                     "t6",
		"SELECT COUNT(*) FROM (SELECT 1 FROM t7) s":                         "",
		"SELECT o.id FROM orders o JOIN order_line l ON l.o = o.id LIMIT 1": "orders order_line",
	} {
		got := ""
		for i, n := range tablesIn(q) {
			if i > 0 {
				got += " "
			}
			got += n
		}
		if got != want {
			t.Errorf("tablesIn(%q) = %q, want %q", q, got, want)
		}
	}
}

// TestScrambledZipfian: a scrambled zipfian ranks its values as the plain one does,
// then spreads the ranks with the stride nearest n/phi that is coprime with n.
func TestScrambledZipfian(t *testing.T) {
	// n = 10: 10/phi = 6.18, so 6, which shares 2 with 10; then 7. Ranks 0..9 land on
	// 0, 7, 14 mod 10 = 4, 1, 8, 5, 2, 9, 6, 3.
	if s := scrambleStride(10); s != 7 {
		t.Fatalf("stride for 10: %d, want 7", s)
	}
	want := []int64{0, 7, 4, 1, 8, 5, 2, 9, 6, 3}
	for i, w := range want {
		if got := scrambleRank(int64(i), 10, 7); got != w {
			t.Errorf("rank %d of 10 lands on %d, want %d", i, got, w)
		}
	}
	// 100,000 products: 100000/phi = 61803.4, and 61803 shares no factor with 10^5.
	if s := scrambleStride(100_000); s != 61803 {
		t.Errorf("stride for 100000: %d, want 61803", s)
	}
	// A permutation for every n (no value lost, none twice), 2^53 without overflow.
	for _, n := range []int64{1, 2, 3, 12, 50, 97, 1000, 4096} {
		s, seen := scrambleStride(n), map[int64]bool{}
		for i := int64(0); i < n; i++ {
			seen[scrambleRank(i, n, s)] = true
		}
		if int64(len(seen)) != n {
			t.Errorf("n %d: %d distinct positions, want %d", n, len(seen), n)
		}
	}
	if got := scrambleRank(1<<53-1, 1<<53, scrambleStride(1<<53)); got < 0 || got >= 1<<53 {
		t.Errorf("rank 2^53-1 of 2^53 lands on %d", got)
	}
	// Drawn from the same stream, the scrambled value is the plain one's rank spread.
	plain := newZipfian(5, 104, 0.87, false)
	mixed := plain
	mixed.stride = scrambleStride(100)
	rp, rm := newRNG(3, "z"), newRNG(3, "z")
	for range 1000 {
		p, m := plain.draw(rp), mixed.draw(rm)
		if want := 5 + scrambleRank(p-5, 100, mixed.stride); m != want {
			t.Fatalf("scrambled draw %d, want %d (plain %d)", m, want, p)
		}
	}
}
