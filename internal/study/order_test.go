package study

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func runKeys(runs []RunRef) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = fmt.Sprintf("%s#%d", r.Cell.ID, r.Rep)
	}
	return out
}

// TestOrderAndShards: fixed runs repetition 1 of every cell, then 2; shuffled is a
// permutation of the same runs drawn from the seed (the same every time, another
// for another seed); shards split the cells by index, every run in exactly one
// shard, each shard in the study's order.
func TestOrderAndShards(t *testing.T) {
	fixed := mustExpand(t, twoByTwo, "")
	got := runKeys(fixed.Runs(All))
	want := []string{"engine=sqlite,users=1#1", "engine=sqlite,users=4#1", "engine=postgres,users=1#1", "engine=postgres,users=4#1",
		"engine=sqlite,users=1#2", "engine=sqlite,users=4#2", "engine=postgres,users=1#2", "engine=postgres,users=4#2"}
	if !slices.Equal(got, want) {
		t.Fatalf("fixed order %q, want %q", got, want)
	}
	shuffledSrc := twoByTwo + "order: shuffled\nseed: 7\n"
	sh := runKeys(mustExpand(t, shuffledSrc, "").Runs(All))
	again := runKeys(mustExpand(t, shuffledSrc, "").Runs(All))
	other := runKeys(mustExpand(t, strings.Replace(shuffledSrc, "seed: 7", "seed: 8", 1), "").Runs(All))
	if !slices.Equal(sh, again) {
		t.Errorf("seed 7 gave %q, then %q", sh, again)
	}
	if slices.Equal(sh, want) || slices.Equal(sh, other) {
		t.Errorf("shuffled %q; fixed %q; seed 8 %q: want three orders", sh, want, other)
	}
	if s := slices.Sorted(slices.Values(sh)); !slices.Equal(s, slices.Sorted(slices.Values(want))) {
		t.Errorf("shuffled runs %q are not the study's runs", sh)
	}

	p := mustExpand(t, shuffledSrc, "")
	var union []string
	for k := 1; k <= 3; k++ {
		part := p.Runs(Shard{K: k, N: 3})
		for _, r := range part {
			if r.Cell.Index%3 != k-1 {
				t.Errorf("shard %d/3 runs cell %d", k, r.Cell.Index)
			}
		}
		keys := runKeys(part)
		// Each shard keeps the study's order.
		var inOrder []string
		for _, x := range sh {
			if slices.Contains(keys, x) {
				inOrder = append(inOrder, x)
			}
		}
		if !slices.Equal(keys, inOrder) {
			t.Errorf("shard %d/3 order %q, want %q", k, keys, inOrder)
		}
		union = append(union, keys...)
	}
	if slices.Sort(union); !slices.Equal(union, slices.Sorted(slices.Values(want))) {
		t.Errorf("shards ran %q, want every run once", union)
	}
}

func TestParseShard(t *testing.T) {
	for _, s := range []string{"3/2", "0/2", "1/0", "2", "a/b", "-1/2"} {
		if _, err := ParseShard(s); err == nil || !strings.Contains(err.Error(), "--shard "+s) || !strings.Contains(err.Error(), "K from 1 to N") {
			t.Errorf("--shard %s: %v", s, err)
		}
	}
	if sh, err := ParseShard("2/3"); err != nil || sh != (Shard{K: 2, N: 3}) {
		t.Errorf("2/3: %v %v", sh, err)
	}
}
