package dbgen

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestFileBytes compares the size estimates with the files WriteFiles writes at a
// scale factor the SF 1 sizes were not taken at. Keys have fewer digits at SF 0.01,
// so the estimates may only be above the files, by at most 10% for a table (nation
// and region are exact) and 30% for the update set (sets vary; the estimate rounds
// the SF 1 set up).
func TestFileBytes(t *testing.T) {
	const sf = 0.01
	dir := t.TempDir()
	if err := WriteFiles(context.Background(), dir, Tables, Options{SF: sf}, UpdateSets{From: 1, To: 1}); err != nil {
		t.Fatal(err)
	}
	size := func(name string) float64 {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return float64(st.Size())
	}
	within := func(what string, got, est, over float64) {
		if est < got || est > got*(1+over) {
			t.Errorf("%s: %.0f bytes, estimate %.0f (want up to %.0f%% above)", what, got, est, over*100)
		}
	}
	total := 0.0
	for _, table := range Tables {
		got, est := size(table+".tbl"), TableBytes(table, sf, 1)
		total += got
		over := 0.10
		if table == "nation" || table == "region" {
			over = 0
		}
		within(table+".tbl", got, est, over)
	}
	set := size("orders.tbl.u1") + size("lineitem.tbl.u1") + size("delete.1")
	within("update set 1", set, UpdateSetBytes(sf), 0.30)
	within("FileBytes", total+set, FileBytes(Tables, Options{SF: sf}, 1), 0.10)
	// A chunk is its share; nation and region come whole with every chunk.
	if got, want := TableBytes("lineitem", 1, 4), tblBytesAtSF1["lineitem"]/4; got != want {
		t.Errorf("lineitem chunk of 4 at SF 1: %.0f, want %.0f", got, want)
	}
	if got := TableBytes("nation", 1, 4); got != 2224 {
		t.Errorf("nation with 4 chunks: %.0f, want 2224", got)
	}
	if TableBytes("items", 1, 1) != 0 {
		t.Error("an unknown table has a size")
	}
}
