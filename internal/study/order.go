package study

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Shard is a share of a study's cells: --shard K/N runs the cells whose index is
// K-1 modulo N, so N machines given K = 1..N run every cell once.
type Shard struct{ K, N int }

// All is every cell.
var All = Shard{K: 1, N: 1}

// ParseShard reads --shard K/N; "" is All.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return All, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, kerr := strconv.Atoi(strings.TrimSpace(ks))
	n, nerr := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || kerr != nil || nerr != nil || n < 1 || k < 1 || k > n {
		return All, fmt.Errorf("--shard %s: give K/N with K from 1 to N, e.g. --shard 1/2 and --shard 2/2 on two machines", s)
	}
	return Shard{K: k, N: n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// checkShard refuses a shard that holds none of the plan's cells (--shard 3/3 of a
// study of 2 cells): it would run nothing and report nothing.
func (p *Plan) checkShard(sh Shard) error {
	if slices.ContainsFunc(p.Cells, func(c Cell) bool { return sh.Has(c.Index) }) {
		return nil
	}
	return fmt.Errorf("--shard %s: the study has %d cells, so shard %d of %d has none: split it into at most %d shards (--shard K/%d)",
		sh, len(p.Cells), sh.K, sh.N, len(p.Cells), len(p.Cells))
}

// Has reports whether the shard runs the cell of index i.
func (s Shard) Has(i int) bool { return i%s.N == s.K-1 }

// RunRef is one run of a study: a cell and a repetition (from 1).
type RunRef struct {
	Cell *Cell
	Rep  int
}

// Runs are the shard's runs in the order the study runs them: fixed runs
// repetition 1 of every cell, then repetition 2, and so on; shuffled puts all the
// study's runs in an order drawn from the seed (the same for every shard, each
// running its own in that order), so that drift over time favours no cell.
func (p *Plan) Runs(sh Shard) []RunRef {
	var all []RunRef
	for rep := 1; rep <= p.Study.Repetitions; rep++ {
		for i := range p.Cells {
			all = append(all, RunRef{Cell: &p.Cells[i], Rep: rep})
		}
	}
	if p.Study.Order == OrderShuffled {
		shuffle(all, p.Study.Seed)
	}
	out := all[:0:0]
	for _, r := range all {
		if sh.Has(r.Cell.Index) {
			out = append(out, r)
		}
	}
	return out
}

// shuffle is Fisher-Yates over PCG, whose stream is fixed for a seed: the same study
// and seed give the same order with any Go release.
func shuffle[T any](xs []T, seed int64) {
	src := rand.NewPCG(uint64(seed), 0x7469657262656e63) // "tierbenc"
	for i := len(xs) - 1; i > 0; i-- {
		j := int(src.Uint64() % uint64(i+1))
		xs[i], xs[j] = xs[j], xs[i]
	}
}
