package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"time"

	"tierbench/internal/capacity"
	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/progress"
	"tierbench/internal/workload/vuser"
)

// LoadConfig says what to populate.
type LoadConfig struct {
	Warehouses int
	Seed       int64
	// Loaders is the number of parallel Engine.Load calls; 0 picks one per core (at
	// least 2), capped by the engine (SQLite: 1).
	Loaders int
	// Now is the timestamp of every date column (default: time.Now()); tests fix it.
	Now time.Time
	// Progress, when set, receives a progress bar (a terminal) or progress lines.
	Progress io.Writer
}

// LoadInfo describes a population; `tpcc load` writes it next to the result so that
// run and check know the size and the load's constants.
type LoadInfo struct {
	vuser.LoadReport
	Warehouses int       `json:"warehouses"`
	Constants  Constants `json:"c_load"`
}

// LoadInfoFile is the name of the file that holds LoadInfo.
const LoadInfoFile = "load.json"

// ReadLoadInfo reads the load's record, which the run lifecycle writes at the end of
// a load (the phase's workload.Report); a missing file is (nil, nil).
func ReadLoadInfo(dir string) (*LoadInfo, error) {
	return metrics.ReadJSONFile[LoadInfo](filepath.Join(dir, LoadInfoFile))
}

// Load drops any TPC-C tables, creates them, populates cfg.Warehouses warehouses as
// clause 4.3 says, builds the secondary indexes and collects statistics.
func Load(ctx context.Context, e engine.Engine, cfg LoadConfig) (*LoadInfo, error) {
	if cfg.Warehouses < 1 || cfg.Warehouses > MaxWarehouses {
		return nil, fmt.Errorf("tpcc: warehouses %d: give 1 to %d", cfg.Warehouses, MaxWarehouses)
	}
	d := e.Dialect()
	if cfg.Now.IsZero() {
		cfg.Now = time.Now()
	}
	loaders := vuser.Loaders(cfg.Loaders, d)
	begin := time.Now()
	db := e.DB()
	for i := len(Tables) - 1; i >= 0; i-- {
		if _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+Tables[i]); err != nil {
			return nil, fmt.Errorf("tpcc: drop %s: %w", Tables[i], err)
		}
	}
	for _, t := range schema {
		if _, err := db.ExecContext(ctx, t.createSQL(d)); err != nil {
			return nil, fmt.Errorf("tpcc: create %s: %w", t.name, err)
		}
	}

	g := newGenerator(cfg.Seed, cfg.Now)
	bar := progress.Start(cfg.Progress, fmt.Sprintf("load %d warehouse(s)", cfg.Warehouses), "rows", totalRows(cfg.Warehouses))
	rows, err := vuser.LoadParallel(ctx, loaders, units(cfg.Warehouses), func(ctx context.Context, u unit) (string, int64, error) {
		n, err := loadUnit(ctx, e, g, u, bar)
		return u.table, n, err
	})
	bar.Finish()
	if err != nil {
		return nil, err
	}

	var after []string
	if d.LoadNULLText {
		after = append(after,
			`UPDATE orders SET o_carrier_id = NULL WHERE o_carrier_id = '\N'`,
			`UPDATE order_line SET ol_delivery_d = NULL WHERE ol_delivery_d = '\N'`)
	}
	after = append(after, indexes...)
	for _, t := range Tables {
		after = append(after, d.Analyze(t)...)
	}
	if err := vuser.ExecEach(ctx, db, after); err != nil {
		return nil, fmt.Errorf("tpcc: %w", err)
	}
	rep, err := vuser.FinishLoad(ctx, e, cfg.Seed, rows, loaders, begin)
	if err != nil {
		return nil, err
	}
	return &LoadInfo{LoadReport: rep, Warehouses: cfg.Warehouses, Constants: g.cLoad}, nil
}

// loadUnit streams one unit from the generator into Engine.Load.
func loadUnit(ctx context.Context, e engine.Engine, g *generator, u unit, bar *progress.Bar) (int64, error) {
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(g.write(u, progress.LineCounter{W: pw, Bar: bar}))
	}()
	t := tableByName(u.table)
	n, err := e.Load(ctx, u.table, t.columnNames(), pr)
	pr.CloseWithError(errors.New("load ended")) // unblock the generator if Load stopped early
	if err != nil {
		return n, fmt.Errorf("tpcc: load %s: %w", u, err)
	}
	return n, nil
}

// MaxWarehouses is the most warehouses a population may have: W_ID is an INT column,
// 32 bits on every engine.
const MaxWarehouses = math.MaxInt32

// BytesPerWarehouse is what a loaded warehouse takes on disk, data and indexes: the
// growth from W=1 to W=4, over 3, was 104 MB on PostgreSQL 15, 92 MB on MariaDB 10.11
// and 86 MB on SQLite (docs/oltp.md, "What a load or a run needs"); the largest,
// rounded up.
const BytesPerWarehouse = 110e6

// logBytes is what the engine's log may hold during a load beside the data:
// PostgreSQL keeps up to max_wal_size (1 GB) of WAL, MariaDB a 96 MB redo log and its
// 76 MB system tablespace.
const logBytes = 1 << 30

// LoadNeed is what `tpcc load` of warehouses warehouses with loaders loaders (0:
// automatic) on the engine d needs of this host: BytesPerWarehouse each and the
// engine's log on dir's file system ("" when the data is not on this host: an
// external server), and the loaders' memory, which does not grow with W.
func LoadNeed(warehouses, loaders int, d *engine.Dialect, external bool, dir string) capacity.Need {
	need := vuser.LoadersNeed(loaders, d, external)
	need.What = fmt.Sprintf("tpcc load --warehouses %d", warehouses)
	if dir != "" {
		need.Disk, need.DiskDir = float64(warehouses)*BytesPerWarehouse+logBytes, dir
		need.Basis = fmt.Sprintf("about %s per warehouse and %s for the engine's log; %s",
			capacity.Bytes(BytesPerWarehouse), capacity.Bytes(logBytes), need.Basis)
	}
	return need
}
