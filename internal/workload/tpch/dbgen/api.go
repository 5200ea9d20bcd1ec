package dbgen

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
)

// Tables lists the eight TPC-H tables by their dbgen file names (without ".tbl").
var Tables = []string{"part", "partsupp", "supplier", "customer", "orders", "lineitem", "nation", "region"}

// Options select what to generate.
type Options struct {
	// SF is the scale factor (0.01 and up, fractional as dbgen does them).
	SF float64
	// Chunks and Step select chunk Step (1-based) of Chunks, as dbgen -C/-S; Chunks <= 1 means all rows.
	Chunks, Step int
	// Workers is the number of goroutines; output is identical for any value. 0 means GOMAXPROCS.
	Workers int
}

// Generate writes the rows of each table in outs (table name -> writer) in dbgen's
// .tbl format, byte-identical to dbgen 2.17.3 for the same options. Tables that dbgen
// generates together (orders+lineitem, part+partsupp) are generated once when both are asked.
//
// Tables are generated concurrently and each writer receives large blocks in
// row order; a consumer reading several pipes must read them concurrently.
// With Chunks > 1, nation and region are written in full for every step, as
// dbgen does. The first call in a process also builds the shared text pool
// (dbgen's 300 MiB of text, held in ~105 MiB; under a second of CPU, using
// all CPUs); ctx is checked between batches,
// so a writer that blocks forever is not interrupted by cancellation.
func Generate(ctx context.Context, opt Options, outs map[string]io.Writer) error {
	for name := range outs {
		if !isTable(name) {
			return fmt.Errorf("dbgen: unknown table %q (want one of %s)", name, strings.Join(Tables, ", "))
		}
	}
	chunks, step := opt.Chunks, opt.Step
	if chunks <= 1 {
		chunks, step = 1, 1
	} else if step < 1 || step > chunks {
		return fmt.Errorf("dbgen: chunk step %d out of range: with %d chunks, Step must be 1..%d", step, chunks, chunks)
	}
	if _, err := newScaling(opt.SF); err != nil || len(outs) == 0 {
		return err
	}
	g, err := newGen(opt.SF)
	if err != nil {
		return err
	}
	groups := g.baseGroups(ctx, outs, int64(chunks), int64(step))
	return runGroups(ctx, workerCount(opt.Workers), groups)
}

// RowCount returns the number of rows table has at scale factor sf (lineitem: an
// estimate, 4 per order on average), for progress bars.
func RowCount(table string, sf float64) int64 {
	sc, err := newScaling(sf)
	if err != nil {
		return 0
	}
	switch table {
	case "part":
		return sc.parts()
	case "partsupp":
		return sc.parts() * suppPerPart
	case "supplier":
		return sc.suppliers()
	case "customer":
		return sc.customers()
	case "orders":
		return sc.orders()
	case "lineitem":
		return sc.orders() * 4
	case "nation":
		return numNations
	case "region":
		return numRegions
	}
	return 0
}

func isTable(name string) bool {
	for _, t := range Tables {
		if t == name {
			return true
		}
	}
	return false
}

func workerCount(w int) int {
	if w <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return w
}

// chunkRange is dbgen's -C/-S split (set_state): equal shares, the remainder
// going to the last chunk.
func chunkRange(total, chunks, step int64) (first, count int64) {
	per := total / chunks
	first = per*(step-1) + 1
	count = per
	if step == chunks {
		count += total % chunks
	}
	return first, count
}

// baseGroups plans the passes for the requested tables.
func (g *gen) baseGroups(ctx context.Context, outs map[string]io.Writer, chunks, step int64) []*group {
	var groups []*group
	want := func(t string) io.Writer { return outs[t] }
	// the largest pass first, so it starts as early as possible
	if want("orders") != nil || want("lineitem") != nil {
		first, count := chunkRange(g.sc.orders(), chunks, step)
		og := &group{name: "orders", first: first, count: count, batchRows: 5000,
			outs: [2]io.Writer{want("orders"), want("lineitem")},
			gen: func(b [2][]byte, lo, n int64, st chainState) [2][]byte {
				b[0], b[1] = g.orders(b[0], b[1], baseOrders(lo, n), st)
				return b
			}}
		if g.sc.wide() {
			og.walk = newOrderChain(ctx, first, first-1, first-1).walk
		}
		groups = append(groups, og)
	}
	if want("part") != nil || want("partsupp") != nil {
		first, count := chunkRange(g.sc.parts(), chunks, step)
		groups = append(groups, &group{name: "part", first: first, count: count, batchRows: 4000,
			outs: [2]io.Writer{want("part"), want("partsupp")},
			gen: func(b [2][]byte, lo, n int64, _ chainState) [2][]byte {
				b[0], b[1] = g.parts(b[0], b[1], lo, n)
				return b
			}})
	}
	if w := want("customer"); w != nil {
		first, count := chunkRange(g.sc.customers(), chunks, step)
		groups = append(groups, &group{name: "customer", first: first, count: count, batchRows: 8000,
			outs: [2]io.Writer{w},
			gen: func(b [2][]byte, lo, n int64, _ chainState) [2][]byte {
				b[0] = g.customers(b[0], lo, n)
				return b
			}})
	}
	if w := want("supplier"); w != nil {
		first, count := chunkRange(g.sc.suppliers(), chunks, step)
		groups = append(groups, &group{name: "supplier", first: first, count: count, batchRows: 8000,
			outs: [2]io.Writer{w},
			gen: func(b [2][]byte, lo, n int64, _ chainState) [2][]byte {
				b[0] = g.suppliers(b[0], lo, n)
				return b
			}})
	}
	if w := want("nation"); w != nil {
		groups = append(groups, &group{name: "nation", first: 1, count: 1, batchRows: 1,
			outs: [2]io.Writer{w},
			gen: func(b [2][]byte, _, _ int64, _ chainState) [2][]byte {
				b[0] = g.nations(b[0])
				return b
			}})
	}
	if w := want("region"); w != nil {
		groups = append(groups, &group{name: "region", first: 1, count: 1, batchRows: 1,
			outs: [2]io.Writer{w},
			gen: func(b [2][]byte, _, _ int64, _ chainState) [2][]byte {
				b[0] = g.regions(b[0])
				return b
			}})
	}
	return groups
}

// UpdateRowCount returns the number of orders inserted (and deleted) by each
// refresh set at scale factor sf, as dbgen computes it (SF*1500 for SF >= 1).
func UpdateRowCount(sf float64) int64 {
	sc, err := newScaling(sf)
	if err != nil {
		return 0
	}
	return sc.updateRows()
}
