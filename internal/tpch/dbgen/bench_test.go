package dbgen

import (
	"context"
	"io"
	"os"
	"testing"
)

// BenchmarkGenerateSF1 writes all eight tables at SF 1 to files, as
// "tierbench gen" would. Run cold with:
//
//	go test -run '^$' -bench GenerateSF1 -benchtime=1x ./internal/tpch/dbgen/
//
// The first iteration includes building the text pool. DBGEN_BENCH_DIR
// selects the output directory (default: a temporary one).
func BenchmarkGenerateSF1(b *testing.B) {
	dir := os.Getenv("DBGEN_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	for i := 0; i < b.N; i++ {
		if err := WriteFiles(context.Background(), dir, Tables, Options{SF: 1}, UpdateSets{}); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(1_078_000_000)
}

// BenchmarkTable generates each table at SF 1 to io.Discard.
func BenchmarkTable(b *testing.B) {
	if _, err := textPool(); err != nil {
		b.Fatal(err)
	}
	for _, tb := range []string{"lineitem", "orders", "partsupp", "part", "customer", "supplier"} {
		b.Run(tb, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := Generate(context.Background(), Options{SF: 1}, map[string]io.Writer{tb: io.Discard}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTextPool measures building the text pool from scratch.
func BenchmarkTextPool(b *testing.B) {
	ds, err := loadDists()
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		g, _ := newSentenceGen(ds)
		g.fillPoolParallel(textPoolSize, poolWorkers()).release()
	}
}
