package qgen

import (
	"fmt"
	"sync"

	"tierbench/internal/workload/tpch/dists"
)

// distribution is a weighted list of the TPC's dists.dss (see package dists).
type distribution = dists.Distribution

// qgenDists are the distributions qgen loads (qgen.c setup()).
type qgenDists struct {
	containers, colors, types, nations, nations2, regions, shipModes, segments, q13a, q13b *distribution
}

var (
	loadOnce sync.Once
	loaded   *qgenDists
	loadErr  error
)

// loadDists returns the distributions qgen draws from, looked up once.
func loadDists() (*qgenDists, error) {
	loadOnce.Do(func() {
		d, err := dists.Get("p_cntr", "colors", "p_types", "nations", "nations2", "regions", "smode", "msegmnt", "Q13a", "Q13b")
		if err != nil {
			loadErr = fmt.Errorf("qgen: %w", err)
			return
		}
		loaded = &qgenDists{containers: d[0], colors: d[1], types: d[2], nations: d[3], nations2: d[4],
			regions: d[5], shipModes: d[6], segments: d[7], q13a: d[8], q13b: d[9]}
	})
	return loaded, loadErr
}
