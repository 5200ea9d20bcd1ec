package vuser

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"sync"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/result"
)

// LoadReport is what every load reports (`oltp load`, `tpcc load`); each workload's
// load file embeds it, so its fields appear at the top level, and adds its own.
type LoadReport struct {
	Seed     int64            `json:"seed"`
	Rows     map[string]int64 `json:"rows"`
	Loaders  int              `json:"loaders"`
	Seconds  float64          `json:"seconds"`
	Engine   engine.Info      `json:"engine"`
	Finished time.Time        `json:"finished"`
	// Sections are what the run lifecycle attaches: the storage section (also in
	// LoadStorageFile) and the energy section of the load.
	result.Sections
}

// HeadlineMetrics are the load's time.
func (r *LoadReport) HeadlineMetrics() []result.Metric {
	return []result.Metric{{Name: "load_s", Value: r.Seconds, Unit: "s", Better: result.LowerIsBetter}}
}

// LoadStorageFile holds the storage section of a load alone (the devices' counters
// of the load), as tools read it.
const LoadStorageFile = "load-storage.json"

// FinishLoad is the report of a load that began at begin and is done now: rows
// loaded by loaders loaders from seed, on the engine e describes.
func FinishLoad(ctx context.Context, e engine.Engine, seed int64, rows map[string]int64, loaders int, begin time.Time) (LoadReport, error) {
	info, err := e.Info(ctx)
	if err != nil {
		return LoadReport{}, err
	}
	return LoadReport{Seed: seed, Rows: rows, Loaders: loaders, Seconds: time.Since(begin).Seconds(), Engine: info,
		Finished: time.Now().UTC()}, nil
}

// LoadParallel runs load on every job with loaders goroutines, stopping at the first
// error, and returns the rows loaded, summed by the table load names. The jobs are
// handed out in order, so a deterministic generator per job gives the same data
// whatever the number of loaders.
func LoadParallel[J any](ctx context.Context, loaders int, jobs iter.Seq[J], load func(context.Context, J) (table string, rows int64, err error)) (map[string]int64, error) {
	rows := map[string]int64{}
	var rowsMu sync.Mutex
	err := Parallel(ctx, loaders, jobs, func(ctx context.Context, j J) error {
		table, n, err := load(ctx, j)
		if err != nil {
			return err
		}
		rowsMu.Lock()
		rows[table] += n
		rowsMu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// Parallel runs fn on every job with n goroutines (at least 1), handing the jobs out
// in order. The first error cancels the context the others run under and is
// returned, as is the cause of ctx ending. Jobs are drawn from the sequence only as
// goroutines take them, so a load of any size holds n jobs at a time, and no job is
// drawn once ctx has ended.
func Parallel[J any](ctx context.Context, n int, jobs iter.Seq[J], fn func(context.Context, J) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ch := make(chan J)
	var wg sync.WaitGroup
	for range max(n, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				if err := fn(ctx, j); err != nil {
					cancel(err)
					return
				}
			}
		}()
	}
	for j := range jobs {
		if ctx.Err() != nil {
			break
		}
		select {
		case ch <- j:
			continue
		case <-ctx.Done():
		}
		break
	}
	close(ch)
	wg.Wait()
	return context.Cause(ctx)
}

// ExecEach runs the statements that follow a load (indexes, statistics) in order,
// each distinct statement once: SQLite's ANALYZE covers every table at once, so the
// dialect gives the same statement for each table.
func ExecEach(ctx context.Context, db *sql.DB, stmts []string) error {
	seen := map[string]bool{}
	for _, q := range stmts {
		if seen[q] {
			continue
		}
		seen[q] = true
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}
