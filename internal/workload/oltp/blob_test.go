package oltp

import (
	"bytes"
	"context"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/workload/vuser"
)

// TestBlobsSQLite: blob columns on SQLite (the servers' in TestManagedServers).
func TestBlobsSQLite(t *testing.T) { blobRoundTrip(t, openSQLite(t)) }

// drawnRows is what the generators draw for table's first chunk with seed, row by row
// and column by column, as Load draws it: blobs as bytes, the rest as text.
func drawnRows(t *testing.T, m *Mix, table string, seed int64) [][]any {
	t.Helper()
	tbl := m.Table(table)
	gens := loadGenerators(t, m, table, seed)
	r := newRNG(seed, "rows", table, 0)
	var out [][]any
	for row := int64(1); row <= tbl.RowsAt(m.Scale); row++ {
		vals := make([]any, len(gens))
		for i, g := range gens {
			if tbl.Columns[i].Type.Kind == "blob" {
				vals[i] = g.value(r)
			} else {
				vals[i] = string(g.append(nil, r, row))
			}
		}
		out = append(out, vals)
	}
	return out
}

// blobRoundTrip loads testdata/images.yaml into e and checks that every blob came
// back byte for byte as the bytes distribution drew it (no engine's escaping or
// character set touched it), at the sizes it was given; then runs the mix briefly:
// each upload stored its 500- and 10-byte values.
func blobRoundTrip(t *testing.T, e engine.Engine) {
	t.Helper()
	ctx := context.Background()
	m := mustOpen(t, "testdata/images.yaml")
	info, err := Load(ctx, e, m, LoadConfig{Seed: 7})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if info.Rows["image"] != 40 || info.Rows["product"] != 20 {
		t.Fatalf("rows %v, want image 40 and product 20", info.Rows)
	}
	want := drawnRows(t, m, "image", 7)
	rows, err := e.DB().QueryContext(ctx, "SELECT image_id, data, thumb FROM image ORDER BY image_id")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var id int64
		var data, thumb []byte
		if err := rows.Scan(&id, &data, &thumb); err != nil {
			t.Fatal(err)
		}
		if id != int64(n+1) {
			t.Fatalf("row %d has image_id %d", n+1, id)
		}
		w := want[n]
		if len(data) < 1000 || len(data) > 3000 || !bytes.Equal(data, w[2].([]byte)) {
			t.Errorf("image %d: data of %d bytes differs from the %d drawn (or is outside 1000-3000)", id, len(data), len(w[2].([]byte)))
		}
		if len(thumb) != 4096 || !bytes.Equal(thumb, w[3].([]byte)) {
			t.Errorf("image %d: thumb of %d bytes differs from the 4096 drawn", id, len(thumb))
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	// 40 thumbnails of exactly 4096 bytes, by the engine's own count.
	var thumbs int64
	if err := e.DB().QueryRowContext(ctx, "SELECT SUM(LENGTH(thumb)) FROM image").Scan(&thumbs); err != nil || thumbs != 40*4096 {
		t.Errorf("SUM(LENGTH(thumb)) = %d, %v; want 163840", thumbs, err)
	}

	out := t.TempDir()
	res, err := Run(ctx, e, m, RunConfig{Plan: vuser.Plan{Users: []int{2}, Duration: 2 * time.Second, Interval: time.Second, Seed: 1, OutDir: out, Checkpoint: saveIn(out)}})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, name := range []string{"show", "upload"} {
		if tx := res.Transactions[name]; tx.Count == 0 || tx.Errors > 0 {
			t.Errorf("%s: %d completed, %d errors (first: %s)", name, tx.Count, tx.Errors, res.FirstErrors[name])
		}
	}
	// Every upload stored its 500- and 10-byte values; the window counts those that
	// finished in it, the users went on a little after its end.
	var uploaded, sized int64
	if err := e.DB().QueryRowContext(ctx, "SELECT COUNT(*) FROM image WHERE image_id > 40").Scan(&uploaded); err != nil {
		t.Fatal(err)
	}
	if err := e.DB().QueryRowContext(ctx, "SELECT COUNT(*) FROM image WHERE LENGTH(data) = 500 AND LENGTH(thumb) = 10 AND image_id > 40").Scan(&sized); err != nil {
		t.Fatal(err)
	}
	if c := res.Transactions["upload"].Count; uploaded != sized || uploaded < c {
		t.Errorf("%d uploads stored, %d of them with their 500- and 10-byte values; the window counted %d", uploaded, sized, c)
	}
}
