package tpch

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"tierbench/internal/engine"
)

// stateTable is tierbench's bookkeeping inside the benchmarked database: which update
// set comes next and what was loaded. It is not part of the TPC-H schema and is never
// touched inside a timed interval.
const stateTable = "tierbench_state"

// State keys.
const (
	stateNextUpdateSet = "next_update_set"
	stateSF            = "sf"
	stateLoadFinished  = "load_finished"
)

// state reads and writes tierbench_state through the engine's pool.
type state struct {
	db *sql.DB
	d  *engine.Dialect
}

func newState(eng engine.Engine) *state { return &state{db: eng.DB(), d: eng.Dialect()} }

// exists reports whether the state table is there, i.e. whether tierbench loaded
// this database.
func (s *state) exists(ctx context.Context) bool {
	return tableExists(ctx, s.db, stateTable)
}

// tableExists probes a table with a query that reads no rows; it is the one form
// every engine accepts without a catalog query of its own.
func tableExists(ctx context.Context, db *sql.DB, name string) bool {
	rows, err := db.QueryContext(ctx, "SELECT 1 FROM "+name+" WHERE 1 = 0")
	if err != nil {
		return false
	}
	rows.Close()
	return true
}

func (s *state) create(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+stateTable+
		" (name VARCHAR(64) NOT NULL PRIMARY KEY, value VARCHAR(255) NOT NULL)")
	if err != nil {
		return fmt.Errorf("create %s: %w", stateTable, err)
	}
	return nil
}

// get returns the value of name, or "" and false when it is not set.
func (s *state) get(ctx context.Context, name string) (string, bool, error) {
	var v string
	err := s.db.QueryRowContext(ctx, "SELECT value FROM "+stateTable+" WHERE name = "+s.d.Param(1), name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read %s.%s: %w", stateTable, name, err)
	}
	return v, true, nil
}

// set stores name = value. Delete and insert in one transaction is the upsert every
// engine understands (MySQL's UPDATE reports 0 rows when the value is unchanged).
func (s *state) set(ctx context.Context, name, value string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("write %s.%s: %w", stateTable, name, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM "+stateTable+" WHERE name = "+s.d.Param(1), name); err != nil {
		return fmt.Errorf("write %s.%s: %w", stateTable, name, err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO "+stateTable+" (name, value) VALUES ("+
		s.d.Param(1)+", "+s.d.Param(2)+")", name, value); err != nil {
		return fmt.Errorf("write %s.%s: %w", stateTable, name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write %s.%s: %w", stateTable, name, err)
	}
	return nil
}

// nextUpdateSet is the first update set no run has used yet (1 on a fresh load or
// a database tierbench did not load).
func (s *state) nextUpdateSet(ctx context.Context) (int, error) {
	if !s.exists(ctx) {
		return 1, nil
	}
	v, ok, err := s.get(ctx, stateNextUpdateSet)
	if err != nil || !ok {
		return 1, err
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s.%s holds %q, not an update set number", stateTable, stateNextUpdateSet, v)
	}
	return n, nil
}

// reserveUpdateSets claims count update sets and returns the first. The claim is
// written before any of them is applied: a run that dies half-way through a refresh
// leaves its sets used, so a later run never inserts an order that is already there.
func (s *state) reserveUpdateSets(ctx context.Context, count int) (int, error) {
	if err := s.create(ctx); err != nil {
		return 0, err
	}
	first, err := s.nextUpdateSet(ctx)
	if err != nil {
		return 0, err
	}
	if err := s.set(ctx, stateNextUpdateSet, strconv.Itoa(first+count)); err != nil {
		return 0, err
	}
	return first, nil
}
