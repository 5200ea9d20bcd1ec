package dbgen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func genAll(t *testing.T, opt Options, tables ...string) map[string][]byte {
	t.Helper()
	bufs := map[string]*bytes.Buffer{}
	outs := map[string]io.Writer{}
	for _, tb := range tables {
		bufs[tb] = &bytes.Buffer{}
		outs[tb] = bufs[tb]
	}
	if err := Generate(context.Background(), opt, outs); err != nil {
		t.Fatal(err)
	}
	res := map[string][]byte{}
	for k, b := range bufs {
		res[k] = b.Bytes()
	}
	return res
}

func TestWorkersDoNotChangeOutput(t *testing.T) {
	tables := []string{"part", "partsupp", "supplier", "customer", "orders", "lineitem"}
	one := genAll(t, Options{SF: 0.05, Workers: 1}, tables...)
	for _, w := range []int{2, 3, 7} {
		many := genAll(t, Options{SF: 0.05, Workers: w}, tables...)
		for _, tb := range tables {
			if sha256.Sum256(one[tb]) != sha256.Sum256(many[tb]) {
				t.Errorf("%s: Workers=%d output differs from Workers=1: %s", tb, w, firstDiff(many[tb], one[tb]))
			}
		}
	}
}

func TestFractionalScaleRowCounts(t *testing.T) {
	want := map[string]int{"customer": 1500, "orders": 15000, "lineitem": 60175, "part": 2000,
		"partsupp": 8000, "supplier": 100, "nation": 25, "region": 5}
	got := genAll(t, Options{SF: 0.01}, Tables...)
	for tb, n := range want {
		if c := bytes.Count(got[tb], []byte("\n")); c != n {
			t.Errorf("%s at SF 0.01: %d rows, dbgen has %d", tb, c, n)
		}
		if tb != "lineitem" && RowCount(tb, 0.01) != int64(n) {
			t.Errorf("RowCount(%s, 0.01) = %d, want %d", tb, RowCount(tb, 0.01), n)
		}
	}
}

func TestChunksConcatenateToWhole(t *testing.T) {
	tables := []string{"part", "partsupp", "supplier", "customer", "orders", "lineitem"}
	whole := genAll(t, Options{SF: 0.01}, tables...)
	const chunks = 7
	cat := map[string][]byte{}
	for s := 1; s <= chunks; s++ {
		part := genAll(t, Options{SF: 0.01, Chunks: chunks, Step: s}, tables...)
		for _, tb := range tables {
			cat[tb] = append(cat[tb], part[tb]...)
		}
	}
	for _, tb := range tables {
		if !bytes.Equal(cat[tb], whole[tb]) {
			t.Errorf("%s: %d chunks concatenated differ from the whole table: %s", tb, chunks, firstDiff(cat[tb], whole[tb]))
		}
	}
}

func TestNationRegion(t *testing.T) {
	got := genAll(t, Options{SF: 1}, "nation", "region")
	// first rows of the TPC's published nation.tbl and region.tbl
	if !strings.HasPrefix(string(got["nation"]), "0|ALGERIA|0| haggle. carefully final deposits detect slyly agai|\n1|ARGENTINA|1|al foxes promise slyly according to the regular accounts. bold requests alon|\n") {
		t.Errorf("nation.tbl starts %q", got["nation"][:150])
	}
	if !strings.HasPrefix(string(got["region"]), "0|AFRICA|lar deposits. blithely final packages cajole. regular waters are final requests. regular accounts are according to |\n") {
		t.Errorf("region.tbl starts %q", got["region"][:130])
	}
}

func TestOptionErrors(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		opt  Options
		outs map[string]io.Writer
	}{
		{Options{SF: 0}, map[string]io.Writer{"nation": io.Discard}},
		{Options{SF: 1, Chunks: 4, Step: 5}, map[string]io.Writer{"nation": io.Discard}},
		{Options{SF: 1}, map[string]io.Writer{"lineitems": io.Discard}},
	}
	for _, c := range cases {
		if err := Generate(ctx, c.opt, c.outs); err == nil {
			t.Errorf("Generate(%+v) succeeded, want an error", c.opt)
		}
	}
	if err := GenerateUpdate(ctx, 1, 0, io.Discard, io.Discard, io.Discard); err == nil {
		t.Error("GenerateUpdate(set 0) succeeded, want an error")
	}
	if err := GenerateUpdate(ctx, 1, 1000, io.Discard, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "sets 1 to 999") {
		t.Errorf("GenerateUpdate(set 1000) = %v, want the range of sets", err)
	}
	if err := Generate(ctx, Options{SF: 100001}, map[string]io.Writer{"nation": io.Discard}); err == nil {
		t.Error("SF 100001 accepted")
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	if f.n > 2 {
		return 0, errors.New("boom")
	}
	return len(p), nil
}

func TestWriterErrorStops(t *testing.T) {
	err := Generate(context.Background(), Options{SF: 0.1}, map[string]io.Writer{"lineitem": &failWriter{}, "customer": io.Discard})
	if err == nil || !strings.Contains(err.Error(), "boom") || !strings.Contains(err.Error(), "lineitem") {
		t.Fatalf("got %v, want the writer's error naming lineitem", err)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Generate(ctx, Options{SF: 0.1}, map[string]io.Writer{"lineitem": io.Discard}); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFiles(context.Background(), dir, []string{"customer", "nation"}, Options{SF: 0.01, Chunks: 3, Step: 2}, UpdateSets{From: 1, To: 2}); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	want := "customer.tbl.2 delete.1 delete.2 lineitem.tbl.u1 lineitem.tbl.u2 nation.tbl orders.tbl.u1 orders.tbl.u2"
	if strings.Join(names, " ") != want {
		t.Fatalf("files %v, want %s", names, want)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "customer.tbl.2"))
	ref := genAll(t, Options{SF: 0.01, Chunks: 3, Step: 2}, "customer")["customer"]
	if !bytes.Equal(got, ref) {
		t.Fatal("customer.tbl.2 differs from Generate's output")
	}
	var o bytes.Buffer
	if err := GenerateUpdate(context.Background(), 0.01, 2, &o, nil, nil); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(filepath.Join(dir, "orders.tbl.u2"))
	if !bytes.Equal(got, o.Bytes()) || len(got) == 0 {
		t.Fatal("orders.tbl.u2 differs from GenerateUpdate's output")
	}
}

func TestWriteFilesLeavesNoPartialFile(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WriteFiles(ctx, dir, []string{"lineitem"}, Options{SF: 0.01}, UpdateSets{}); err == nil {
		t.Fatal("cancelled WriteFiles succeeded")
	}
	// Update sets alone: the loop over them stops too.
	if err := WriteFiles(ctx, dir, nil, Options{SF: 0.01}, UpdateSets{From: 1, To: 999}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled WriteFiles of 999 update sets: %v, want context.Canceled", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Fatalf("left files behind: %v", ents)
	}
}

func TestMaxUpdateSet(t *testing.T) {
	// R = SF*1500 orders per set; set N deletes base orders (N-1)*R+1..N*R
	// and MK_SPARSE keeps sets apart up to 999.
	for sf, want := range map[float64]int{0.01: 999, 1: 999, 30000: 999, 100000: 999, 0: 0, 100001: 0} {
		if got := MaxUpdateSet(sf); got != want {
			t.Errorf("MaxUpdateSet(%v) = %d, want %d", sf, got, want)
		}
	}
	// the last set deletes the base orders just below 999*R+1
	var d bytes.Buffer
	if err := GenerateUpdate(context.Background(), 0.01, 999, nil, nil, &d); err != nil {
		t.Fatal(err)
	}
	if want := "39909|\n39910|\n"; !strings.HasPrefix(d.String(), want) {
		t.Errorf("delete.999 at SF 0.01 starts %q, want %q", d.String()[:20], want)
	}
}

func TestUpdateRowCount(t *testing.T) {
	for sf, want := range map[float64]int64{1: 1500, 10: 15000, 0.01: 10, 2.5: 3000} {
		if got := UpdateRowCount(sf); got != want {
			t.Errorf("UpdateRowCount(%v) = %d, want %d", sf, got, want)
		}
	}
	var o, d bytes.Buffer
	if err := GenerateUpdate(context.Background(), 0.01, 3, &o, nil, &d); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(o.Bytes(), []byte("\n")); n != 10 {
		t.Errorf("update set at SF 0.01 has %d orders, want 10", n)
	}
	if !strings.HasPrefix(d.String(), "69|\n70|\n71|\n96|\n97|\n") {
		t.Errorf("delete set 3 at SF 0.01 starts %q", d.String())
	}
}
