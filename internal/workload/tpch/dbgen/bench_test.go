package dbgen

import (
	"context"
	"io"
	"os"
	"testing"
)

// Where the time of a whole SF 1 run goes (docs/tpch.md, "tierbench tpch gen",
// compares the run with tpchgen-cli; measured with pprof CPU and allocation
// profiles, strace -c and /usr/bin/time on the shared 2-core machine, whose
// load average was 20-30 at the time, so read shares, not seconds; perf has no
// hardware counters in this VM):
//
//   - The text pool: ~1/3 of the CPU before tables start. dbgen's pool is
//     300 MiB of sentences from one Park-Miller stream. Writing it as bytes
//     cost ~0.9 s user plus 0.5-0.9 s system time (page faults on 300 MiB,
//     even with huge pages) and made the pool alone larger than tpchgen-cli's
//     whole peak RSS. It is now held as 16-bit word pieces (text.go): ~0.7 s
//     user, ~0.1 s system, ~105 MiB.
//   - Comments: every comment starts at a random place in the pool, so each
//     one is a cache miss. Drawing a block of rows first and loading all their
//     comments' pieces in one loop (textPoolT.prefetch) overlaps the misses;
//     without it lineitem took ~0.7 s more CPU with the piece pool.
//   - System time: strace -c shows ~720 write(2) calls of ~1.5 MB for the
//     1.1 GB written, not small writes; the kernel's copy into the page cache
//     (~0.8 s at SF 1 here) is most of what is left, plus dirty-page
//     throttling that shows up as wall time when the disk is busy. The 2.27 s
//     of system time measured before the piece pool came from that copy plus
//     the page faults of the byte pool. Allocation is not the problem: the
//     allocation profile of a whole SF 1 run shows 94 MB allocated in total
//     (13 batch buffers of 4 MiB, the order records of each batch).
//   - Row generation: strconv.AppendInt ~10%, Park-Miller draws with a float
//     division each (UnifInt must be reproduced bit for bit, so the division
//     stays), and the per-row skip of every stream, now folded instead of
//     divided (mulMod).
//
// scripts/gen-vs-tpchgen runs the whole command against tpchgen-cli.

// BenchmarkGenerateSF1 writes all eight tables at SF 1 to files, as
// "tierbench tpch gen" would. Run cold with:
//
//	go test -run '^$' -bench GenerateSF1 -benchtime=1x ./internal/workload/tpch/dbgen/
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

// BenchmarkWideChain measures walking the 64-bit O_CUSTKEY/L_PARTKEY chain
// that SF 30000 and up need (chain.go), per order: 240 ns with NthElement
// as a loop of divisions, 122 ns folded (nthFold), on the loaded machine.
func BenchmarkWideChain(b *testing.B) {
	c := newOrderChain(context.Background(), 1, 0, 0)
	b.ResetTimer()
	c.advance(int64(b.N))
}
