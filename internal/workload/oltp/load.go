package oltp

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/progress"
	"tierbench/internal/workload/vuser"
)

// chunkRows is the population's unit of work: each chunk of a table is generated from
// its own seeded stream, so the data does not depend on how many loaders run.
const chunkRows = 100_000

// LoadConfig says how to populate a mix.
type LoadConfig struct {
	// Scale multiplies the tables' rows; 0 takes the mix's own.
	Scale float64
	Seed  int64
	// Loaders is the number of parallel Engine.Load calls; 0 picks one per core (at
	// least 2), capped by the engine (SQLite: 1).
	Loaders int
	// Progress, when set, receives a progress bar (a terminal) or progress lines.
	Progress io.Writer
}

// LoadInfo describes a population; `oltp load` writes it next to the results.
type LoadInfo struct {
	vuser.LoadReport
	Mix       string  `json:"mix"`
	MixFile   string  `json:"mix_file"`
	MixSHA256 string  `json:"mix_sha256"`
	Scale     float64 `json:"scale"`
}

// LoadInfoFile is the name of the file that holds LoadInfo.
const LoadInfoFile = "oltp-load.json"

// ReadLoadInfo reads the load's record, which the run lifecycle writes at the end of
// a load (the phase's workload.Report); a missing file is (nil, nil).
func ReadLoadInfo(dir string) (*LoadInfo, error) {
	return metrics.ReadJSONFile[LoadInfo](filepath.Join(dir, LoadInfoFile))
}

// chunk is rows first..last (from 1) of one table.
type chunk struct {
	table       *Table
	n           int
	first, last int64
}

// Load drops the mix's tables if they exist, creates them, fills them in parallel
// chunks, builds the secondary indexes and collects optimizer statistics.
func Load(ctx context.Context, e engine.Engine, m *Mix, cfg LoadConfig) (*LoadInfo, error) {
	if cfg.Scale == 0 {
		cfg.Scale = m.Scale
	}
	if err := m.CheckScale(cfg.Scale); err != nil {
		return nil, fmt.Errorf("mix %s: scale %v: %w", m.Name, cfg.Scale, err)
	}
	d := e.Dialect()
	loaders := vuser.Loaders(cfg.Loaders, d)
	begin := time.Now()
	db := e.DB()
	for i := len(m.Tables) - 1; i >= 0; i-- {
		if _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+m.Tables[i].Name); err != nil {
			return nil, fmt.Errorf("mix %s: drop %s: %w", m.Name, m.Tables[i].Name, err)
		}
	}
	for _, t := range m.Tables {
		if _, err := db.ExecContext(ctx, createSQL(d, t)); err != nil {
			return nil, fmt.Errorf("mix %s: create %s: %w", m.Name, t.Name, err)
		}
	}

	gens := map[*Table][]generator{}
	ev := env{seed: cfg.Seed, load: true, keys: func(table, _ string) (int64, error) {
		return m.Table(table).RowsAt(cfg.Scale), nil
	}}
	var total int64
	for _, t := range m.Tables {
		for _, c := range t.Columns {
			g, err := newGenerator(c.Value, ev)
			if err != nil {
				return nil, fmt.Errorf("mix %s: %w", m.Name, err)
			}
			gens[t] = append(gens[t], g)
		}
		total = min(total+t.RowsAt(cfg.Scale), math.MaxInt64-MaxRows)
	}
	bar := progress.Start(cfg.Progress, "load "+m.Name, "rows", total)
	rows, err := vuser.LoadParallel(ctx, loaders, chunks(m, cfg.Scale), func(ctx context.Context, c chunk) (string, int64, error) {
		n, err := loadChunk(ctx, e, c, gens[c.table], cfg.Seed, bar)
		return c.table.Name, n, err
	})
	bar.Finish()
	if err != nil {
		return nil, err
	}
	for _, t := range m.Tables {
		if _, ok := rows[t.Name]; !ok {
			rows[t.Name] = 0 // every table is listed, also one of no rows
		}
	}

	var after []string
	for _, t := range m.Tables {
		for _, ix := range t.Indexes {
			after = append(after, ix.createSQL(t.Name))
		}
	}
	for _, t := range m.Tables {
		after = append(after, d.Analyze(t.Name)...)
	}
	if err := vuser.ExecEach(ctx, db, after); err != nil {
		return nil, fmt.Errorf("mix %s: %w", m.Name, err)
	}
	rep, err := vuser.FinishLoad(ctx, e, cfg.Seed, rows, loaders, begin)
	if err != nil {
		return nil, err
	}
	return &LoadInfo{LoadReport: rep, Mix: m.Name, MixFile: m.File, MixSHA256: m.SHA256, Scale: cfg.Scale}, nil
}

// chunks yields the chunks of m's tables at scale, as loaders draw them: a list of
// them would grow with the rows (10^7 chunks for 10^12 rows) before the first row
// was loaded.
func chunks(m *Mix, scale float64) iter.Seq[chunk] {
	return func(yield func(chunk) bool) {
		for _, t := range m.Tables {
			rows := t.RowsAt(scale)
			for i, first := 0, int64(1); first <= rows; i, first = i+1, first+chunkRows {
				if !yield(chunk{table: t, n: i, first: first, last: min(rows, first+chunkRows-1)}) {
					return
				}
			}
		}
	}
}

// loadChunk streams one chunk from its generator into Engine.Load, or for a table
// with blob columns inserts it (insertChunk).
func loadChunk(ctx context.Context, e engine.Engine, c chunk, gens []generator, seed int64, bar *progress.Bar) (int64, error) {
	if c.table.hasBlob() {
		n, err := insertChunk(ctx, e, c, gens, seed, bar)
		if err != nil {
			return n, fmt.Errorf("load %s rows %d-%d: %w", c.table.Name, c.first, c.last, err)
		}
		return n, nil
	}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(writeChunk(pw, c, gens, seed, bar))
	}()
	cols := make([]string, len(c.table.Columns))
	for i, col := range c.table.Columns {
		cols[i] = col.Name
	}
	n, err := e.Load(ctx, c.table.Name, cols, pr)
	pr.CloseWithError(errors.New("load ended")) // unblock the generator if Load stopped early
	if err != nil {
		return n, fmt.Errorf("load %s rows %d-%d: %w", c.table.Name, c.first, c.last, err)
	}
	return n, nil
}

// writeChunk writes a chunk's rows in the bulk loader's format: every field followed
// by '|', one row a line. The generators never produce '|', '\' or line breaks.
func writeChunk(w io.Writer, c chunk, gens []generator, seed int64, bar *progress.Bar) error {
	r := newRNG(seed, "rows", c.table.Name, c.n)
	buf := make([]byte, 0, 128<<10)
	pending := int64(0)
	for row := c.first; row <= c.last; row++ {
		buf = appendRow(buf, r, row, gens)
		pending++
		if len(buf) >= 64<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			bar.Add(pending)
			buf, pending = buf[:0], 0
		}
	}
	if _, err := w.Write(buf); err != nil {
		return err
	}
	bar.Add(pending)
	return nil
}

func appendRow(b []byte, r *rand.Rand, row int64, gens []generator) []byte {
	for _, g := range gens {
		b = g.append(b, r, row)
		b = append(b, '|')
	}
	return append(b, '\n')
}

// hasBlob reports a table with a blob column.
func (t *Table) hasBlob() bool {
	for _, c := range t.Columns {
		if c.Type.Kind == "blob" {
			return true
		}
	}
	return false
}

// insertTxBytes is about how much one transaction of insertChunk writes before it
// commits.
const insertTxBytes = 16 << 20

// insertChunk loads a chunk of a table with blob columns. The bulk loaders read text,
// in which binary values would need each engine's own escaping (COPY's \x hex, LOAD
// DATA's escapes, SQLite's blob literals); here every row is a prepared INSERT with its
// blobs bound as bytes and its other values as the text the bulk loaders would get,
// in transactions of about insertTxBytes, the same on every engine. The values come
// from the same stream as writeChunk's, so the data does not depend on the path.
func insertChunk(ctx context.Context, e engine.Engine, c chunk, gens []generator, seed int64, bar *progress.Bar) (int64, error) {
	conn, err := e.DB().Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	d := e.Dialect()
	cols, marks := make([]string, len(c.table.Columns)), make([]string, len(c.table.Columns))
	for i, col := range c.table.Columns {
		cols[i], marks[i] = col.Name, d.Param(i+1)
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", c.table.Name, strings.Join(cols, ", "), strings.Join(marks, ", "))
	r := newRNG(seed, "rows", c.table.Name, c.n)
	args := make([]any, len(gens))
	var tx *sql.Tx
	var stmt *sql.Stmt
	defer func() {
		if tx != nil {
			tx.Rollback()
		}
	}()
	var loaded, bytes int64
	buf := make([]byte, 0, 256)
	for row := c.first; row <= c.last; row++ {
		if tx == nil {
			if tx, err = conn.BeginTx(ctx, nil); err != nil {
				return loaded, err
			}
			if stmt, err = tx.PrepareContext(ctx, q); err != nil {
				return loaded, err
			}
		}
		for i, g := range gens {
			if c.table.Columns[i].Type.Kind == "blob" {
				b := g.value(r).([]byte)
				args[i], bytes = b, bytes+int64(len(b))
				continue
			}
			buf = g.append(buf[:0], r, row)
			args[i] = string(buf)
			bytes += int64(len(buf))
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return loaded, fmt.Errorf("insert row %d: %w", row, err)
		}
		loaded++
		bar.Add(1)
		if bytes >= insertTxBytes || row == c.last {
			stmt.Close()
			err := tx.Commit()
			tx, bytes = nil, 0
			if err != nil {
				return loaded, fmt.Errorf("commit: %w", err)
			}
		}
	}
	return loaded, nil
}
