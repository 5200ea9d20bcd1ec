package oltp

import (
	"context"
	"testing"
)

// BenchmarkPointSelect measures one point-select transaction on SQLite: the harness's
// cost per transaction, with allocations (go test -bench PointSelect -benchmem).
func BenchmarkPointSelect(b *testing.B) {
	e := openSQLiteB(b)
	m, err := Open("point-select")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := Load(ctx, e, m, LoadConfig{Scale: 0.01, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	wl, err := NewTransactions(ctx, e, m, TransactionsConfig{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	w, err := wl.NewWorker(ctx, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(ctx) // as vuser.Run's statements get
	defer cancel()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		txn := w.Next()
		if res := w.Run(ctx, txn.Op); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}
