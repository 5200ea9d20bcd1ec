package oltp

import (
	"fmt"
	"math"

	"tierbench/internal/capacity"
	"tierbench/internal/engine"
	"tierbench/internal/workload/vuser"
)

// What a loaded row costs on disk, as PostgreSQL, MariaDB (InnoDB) and SQLite store
// it, the largest of the three where they differ; docs/oltp.md ("What a load or a run
// needs") compares the estimate with measured loads.
const (
	// rowOverhead is a row's header and its slot in the page: PostgreSQL's 23-byte
	// tuple header, alignment and 4-byte line pointer; InnoDB's record header,
	// transaction id and roll pointer come to about as much.
	rowOverhead = 32
	// indexEntryOverhead is an index entry's header and line pointer beside its key.
	indexEntryOverhead = 16
	// pageSlack covers pages left part empty: B-tree leaves a bulk load fills to 90%
	// (PostgreSQL) or 15/16 (InnoDB), inner pages, free space maps.
	pageSlack = 1.25
	// logBytes is what the engine's log may hold during the load beside the data:
	// PostgreSQL keeps up to max_wal_size (1 GB) of WAL, MariaDB a 96 MB redo log and
	// its system tablespace.
	logBytes = 1 << 30
	// sampleRows is how many rows of each table the estimate generates to learn the
	// length of its text columns.
	sampleRows = 1000
)

// DiskBytes estimates what loading m at scale writes to disk: per row, each column's
// stored size (fixed by its type, for text the average length of sampleRows generated
// values, for a blob the mean size its distribution draws), a row header, an entry in
// the primary key and in each secondary index (key columns, plus the primary key's in
// a secondary index, as InnoDB stores it), a slack for part-empty pages, and room for
// the engine's log.
func DiskBytes(m *Mix, scale float64) (float64, error) {
	if err := m.CheckScale(scale); err != nil {
		return 0, err
	}
	// Any seed does: the sample only learns the lengths of the text.
	ev := env{seed: 1, load: true, keys: func(table, _ string) (int64, error) {
		return m.Table(table).RowsAt(scale), nil
	}}
	total := float64(logBytes)
	for _, t := range m.Tables {
		rows := t.RowsAt(scale)
		if rows == 0 {
			continue
		}
		width, err := columnBytes(t, ev, min(rows, sampleRows))
		if err != nil {
			return 0, fmt.Errorf("mix %s: %w", m.Name, err)
		}
		perRow := float64(rowOverhead)
		for _, w := range width {
			perRow += w
		}
		key := func(cols []string) float64 {
			var b float64
			for _, c := range cols {
				b += width[c]
			}
			return b
		}
		pk := key(t.PrimaryKey)
		perRow += pk + indexEntryOverhead
		for _, ix := range t.Indexes {
			perRow += key(ix.Columns) + pk + indexEntryOverhead
		}
		total += float64(rows) * perRow * pageSlack
	}
	return total, nil
}

// columnBytes is the stored size of each of t's columns: by its type, and for text by
// the average length of n generated values.
func columnBytes(t *Table, ev env, n int64) (map[string]float64, error) {
	out := map[string]float64{}
	r := newRNG(ev.seed, "estimate", t.Name)
	for _, c := range t.Columns {
		switch c.Type.Kind {
		case "smallint":
			out[c.Name] = 2
		case "int", "date":
			out[c.Name] = 4
		case "bigint", "float", "timestamp":
			out[c.Name] = 8
		case "decimal": // PostgreSQL's numeric: a header and 2 bytes per 4 digits
			out[c.Name] = 8 + 2*math.Ceil(float64(c.Type.Size)/4)
		case "char":
			out[c.Name] = float64(c.Type.Size) + 1
		case "blob": // the bytes distribution's mean size and a length header
			if c.Value != nil {
				out[c.Name] = (c.Value.Min+c.Value.Max)/2 + 4
			}
		default: // varchar, text: a length header and the characters
			if c.Value == nil {
				out[c.Name] = float64(c.Type.Size)/2 + 2
				continue
			}
			g, err := newGenerator(c.Value, ev)
			if err != nil {
				return nil, err
			}
			var sum int
			buf := make([]byte, 0, 256)
			for row := int64(1); row <= n; row++ {
				sum += len(g.append(buf[:0], r, row))
			}
			out[c.Name] = float64(sum)/float64(n) + 2
		}
	}
	return out, nil
}

// LoadNeed is what `oltp load` of m at scale with loaders loaders (0: automatic)
// needs of this host: the disk DiskBytes estimates, in dir ("" when the data is not
// on this host: an external server), and the loaders' memory.
func LoadNeed(m *Mix, scale float64, loaders int, d *engine.Dialect, external bool, dir string) (capacity.Need, error) {
	disk, err := DiskBytes(m, scale)
	if err != nil {
		return capacity.Need{}, err
	}
	need := vuser.LoadersNeed(loaders, d, external)
	need.What = fmt.Sprintf("oltp load --mix %s --scale %g", m.Name, scale)
	if dir != "" {
		need.Disk, need.DiskDir = disk, dir
		need.Basis = fmt.Sprintf("the mix's rows by their column types, indexes and %.0f%% for part-empty pages, plus %s for the engine's log; %s",
			(pageSlack-1)*100, capacity.Bytes(logBytes), need.Basis)
	}
	return need, nil
}
