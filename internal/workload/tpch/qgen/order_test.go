package qgen

import (
	"slices"
	"testing"
)

func TestOrderDigestRows(t *testing.T) {
	want := map[int][]int{
		0: {14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22, 16, 4, 11, 15, 1, 10, 19, 5, 7, 12},
		1: {21, 3, 18, 5, 11, 7, 6, 20, 17, 12, 16, 15, 13, 10, 2, 8, 14, 19, 9, 22, 1, 4},
		2: {6, 17, 14, 16, 19, 10, 9, 2, 15, 8, 5, 22, 12, 7, 13, 18, 1, 4, 20, 3, 11, 21},
	}
	for s, w := range want {
		if got := Order(s); !slices.Equal(got, w) {
			t.Errorf("Order(%d) = %v, want %v", s, got, w)
		}
		if got := Order(s + 41); !slices.Equal(got, w) {
			t.Errorf("Order(%d) = %v, want row %d", s+41, got, s)
		}
	}
	if Order(-1) != nil {
		t.Error("Order(-1) must be nil")
	}
	Order(0)[0] = 99
	if Order(0)[0] != 14 {
		t.Error("Order returns the table's own row")
	}
}

func TestOrderRowsArePermutations(t *testing.T) {
	for s := range 41 {
		row := Order(s)
		sorted := slices.Sorted(slices.Values(row))
		for i, q := range sorted {
			if q != i+1 {
				t.Fatalf("row %d = %v is not a permutation of 1..22", s, row)
			}
		}
		for o := range s {
			if slices.Equal(Order(o), row) {
				t.Errorf("rows %d and %d are equal", o, s)
			}
		}
	}
}

func TestStreamSeed(t *testing.T) {
	if got := StreamSeed(1231235959, 3); got != 1231235962 {
		t.Errorf("StreamSeed = %d", got)
	}
}
