package tpch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"tierbench/internal/workload/tpch/dbgen"
)

// updateSetMemory is how many bytes of update sets a test keeps in memory; beyond
// it they are written to files first. dbgen writes about 1 MB of update rows per
// unit of SF a set (dbgen.UpdateSetBytes), so the power test's set stays in memory
// up to SF 500 and the throughput test's sets up to SF 100 with 5 streams.
var updateSetMemory float64 = 512 << 20 // a variable for tests

// updateSet is update set n as dbgen -U writes it: orders.tbl.uN, lineitem.tbl.uN and
// delete.N. It is generated before the refresh functions are timed, the only
// preparation the spec allows (Clause 2.5); parsing and loading the rows are timed.
// Its rows are in memory or, for big sets, in files read inside the timed interval,
// as a kit reading dbgen's flat files does.
type updateSet struct {
	n                         int
	orders, lineitem, deletes []byte
	// files are the paths of the orders, lineitem and delete rows when spilled.
	files []string
}

// rf1Rows returns the orders and lineitem rows.
func (s *updateSet) rf1Rows() (orders, lineitem []byte, err error) {
	if s.files == nil {
		return s.orders, s.lineitem, nil
	}
	if orders, err = os.ReadFile(s.files[0]); err != nil {
		return nil, nil, fmt.Errorf("update set %d: %w", s.n, err)
	}
	if lineitem, err = os.ReadFile(s.files[1]); err != nil {
		return nil, nil, fmt.Errorf("update set %d: %w", s.n, err)
	}
	return orders, lineitem, nil
}

// rf2Rows returns the delete rows (order keys).
func (s *updateSet) rf2Rows() ([]byte, error) {
	if s.files == nil {
		return s.deletes, nil
	}
	b, err := os.ReadFile(s.files[2])
	if err != nil {
		return nil, fmt.Errorf("update set %d: %w", s.n, err)
	}
	return b, nil
}

func generateUpdateSet(ctx context.Context, sf float64, n int) (*updateSet, error) {
	var o, l, d bytes.Buffer
	if err := dbgen.GenerateUpdate(ctx, sf, n, &o, &l, &d); err != nil {
		return nil, fmt.Errorf("generate update set %d: %w", n, err)
	}
	return &updateSet{n: n, orders: o.Bytes(), lineitem: l.Bytes(), deletes: d.Bytes()}, nil
}

// generateUpdateSetFiles writes update set n to files in dir, named as dbgen names them.
func generateUpdateSetFiles(ctx context.Context, sf float64, n int, dir string) (set *updateSet, err error) {
	set = &updateSet{n: n, files: []string{
		filepath.Join(dir, fmt.Sprintf("orders.tbl.u%d", n)),
		filepath.Join(dir, fmt.Sprintf("lineitem.tbl.u%d", n)),
		filepath.Join(dir, fmt.Sprintf("delete.%d", n)),
	}}
	var ws []io.Writer
	for _, path := range set.files {
		f, err := os.Create(path)
		if err != nil {
			return nil, fmt.Errorf("update set %d: %w", n, err)
		}
		defer func() {
			if cerr := f.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("update set %d: %w", n, cerr)
			}
		}()
		ws = append(ws, f)
	}
	if err := dbgen.GenerateUpdate(ctx, sf, n, ws[0], ws[1], ws[2]); err != nil {
		return nil, fmt.Errorf("generate update set %d: %w", n, err)
	}
	return set, nil
}

// prepareUpdateSets generates count sets from first on: in memory when they fit in
// updateSetMemory, else in files in a new directory under dir (the system's temp
// directory when dir is empty). cleanup removes the files.
func prepareUpdateSets(ctx context.Context, sf float64, first, count int, dir string) (sets []*updateSet, cleanup func(), err error) {
	cleanup = func() {}
	sets = make([]*updateSet, count)
	if dbgen.UpdateSetBytes(sf)*float64(count) <= updateSetMemory {
		for i := range sets {
			if err := ctx.Err(); err != nil {
				return nil, cleanup, err
			}
			if sets[i], err = generateUpdateSet(ctx, sf, first+i); err != nil {
				return nil, cleanup, err
			}
		}
		return sets, cleanup, nil
	}
	tmp, err := os.MkdirTemp(dir, "tierbench-update-sets-")
	if err != nil {
		return nil, cleanup, fmt.Errorf("update sets: %w", err)
	}
	cleanup = func() { os.RemoveAll(tmp) }
	for i := range sets {
		if err = ctx.Err(); err == nil {
			sets[i], err = generateUpdateSetFiles(ctx, sf, first+i, tmp)
		}
		if err != nil {
			cleanup()
			return nil, func() {}, err
		}
	}
	return sets, cleanup, nil
}
