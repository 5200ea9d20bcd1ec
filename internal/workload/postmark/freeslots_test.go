package postmark

import (
	"math/rand/v2"
	"testing"
)

// findFreeFile is Postmark's find_free_file as it is written: the slot after the last
// one taken if it is free, else the first free one from the start.
func findFreeFile(sizes []int, allocated *int) int {
	if *allocated < len(sizes) && sizes[*allocated] == 0 {
		*allocated++
		return *allocated - 1
	}
	for i := range sizes {
		if sizes[i] == 0 {
			*allocated = i + 1
			return i
		}
	}
	return -1
}

// The generator takes the slots Postmark's walk over the table takes, through every
// pattern of creates and deletes: tables of 1 to several words of slots, filled,
// emptied and churned.
func TestFreeSlotAsPostmark(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, files := range []int{1, 31, 32, 33, 100, 2048, 2049, 5000} {
		g := &Generator{table: make([]slot, 2*files), free: newFreeSlots(2 * files)}
		sizes := make([]int, 2*files)
		allocated := 0
		used := 0
		for step := range 20 * files {
			create := rng.IntN(10) < 5
			if step < 2*files { // fill the table first: the walk is longest then
				create = true
			}
			if create {
				want := findFreeFile(sizes, &allocated)
				got := g.freeSlot()
				if got != want {
					t.Fatalf("%d files, step %d: slot %d, Postmark's %d", files, step, got, want)
				}
				if got >= 0 {
					sizes[got], g.table[got].size = 1, 1
					used++
				}
			} else if used > 0 {
				s := rng.IntN(len(sizes))
				for sizes[s] == 0 {
					s = rng.IntN(len(sizes))
				}
				sizes[s] = 0
				g.remove(s)
				used--
			}
		}
	}
}
