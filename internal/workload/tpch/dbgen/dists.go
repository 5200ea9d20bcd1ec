package dbgen

import (
	"fmt"
	"sync"

	"tierbench/internal/workload/tpch/dists"
)

// distribution is one list of dists.dss (see package dists) with a lookup table
// for picks: pick maps a drawn weight to an index in O(1).
type distribution struct {
	name  string
	words []string
	cum   []int64
	pick  []int32 // pick[j] = first index with cum >= j, for j in 1..max
}

func (d *distribution) max() int64 { return d.cum[len(d.cum)-1] }

// pickIndex is dbgen's pick_str: draw j in [1, max] and return the first member
// whose cumulative weight reaches j.
func (d *distribution) pickIndex(r *rowSeeds, s int) int {
	j := r.random(1, d.max(), s)
	return int(d.pick[j])
}

type distSet struct {
	nations, regions, priorities, instructs, shipModes, returnFlags *distribution
	segments, colors, partTypes, containers                         *distribution
	nouns, verbs, adjectives, adverbs, auxiliaries, terminators     *distribution
	articles, prepositions, grammar, nounPhrases, verbPhrases       *distribution
}

var (
	distsOnce sync.Once
	loaded    *distSet
	distsErr  error
)

func loadDists() (*distSet, error) {
	distsOnce.Do(func() {
		names := []string{"nations", "regions", "o_oprio", "instruct", "smode", "rflag",
			"msegmnt", "colors", "p_types", "p_cntr", "nouns", "verbs", "adjectives", "adverbs",
			"auxillaries", "terminators", "articles", "prepositions", "grammar", "np", "vp"}
		got, err := dists.Get(names...)
		if err != nil {
			distsErr = fmt.Errorf("dbgen: %w", err)
			return
		}
		d := make([]*distribution, len(got))
		for i, g := range got {
			d[i] = &distribution{name: g.Name, words: g.Words, cum: g.Cum}
			d[i].buildPick()
		}
		loaded = &distSet{
			nations: d[0], regions: d[1], priorities: d[2], instructs: d[3], shipModes: d[4],
			returnFlags: d[5], segments: d[6], colors: d[7], partTypes: d[8], containers: d[9],
			nouns: d[10], verbs: d[11], adjectives: d[12], adverbs: d[13], auxiliaries: d[14],
			terminators: d[15], articles: d[16], prepositions: d[17], grammar: d[18],
			nounPhrases: d[19], verbPhrases: d[20],
		}
	})
	return loaded, distsErr
}

func (d *distribution) buildPick() {
	if len(d.cum) == 0 {
		return
	}
	max := d.max()
	if max < 1 || max > 1<<20 {
		return
	}
	d.pick = make([]int32, max+1)
	i := 0
	for j := int64(1); j <= max; j++ {
		for d.cum[i] < j {
			i++
		}
		d.pick[j] = int32(i)
	}
}
