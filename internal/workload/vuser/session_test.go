package vuser

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// TestRollbackAndAlive: Rollback ends the open transaction even once the run's
// context has ended; Alive tells a working connection from a closed one.
func TestRollbackAndAlive(t *testing.T) {
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE TABLE kv (k INTEGER PRIMARY KEY)", "BEGIN", "INSERT INTO kv VALUES (1)"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	Rollback(ended, conn)
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM kv").Scan(&n); err != nil || n != 0 {
		t.Errorf("after Rollback on an ended run: %d rows (%v), want the insert undone", n, err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		t.Errorf("BEGIN after Rollback: %v (the transaction is still open)", err)
	}
	if !Alive(ctx, conn) {
		t.Error("a working connection is not alive")
	}
	conn.Close()
	if Alive(ctx, conn) {
		t.Error("a closed connection is alive")
	}
}
