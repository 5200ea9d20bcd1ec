package oltp

import (
	"context"
	"strings"
	"time"

	"tierbench/internal/workload/vuser"
)

// gates are the application's own gates in front of the database (docs/oltp.md, "The
// application's pool and critical sections"): a connection pool smaller than the
// users and critical sections around chosen transactions or statements, each a
// semaphore of its holders. The database sees every user's session; at most Pool of
// them run a transaction at once, as an application's pool of Pool connections would
// let them. Users take the pool first, then the sections around their transaction in
// the order the mix declares them, then, for each statement, the sections around it;
// a section is around transactions or statements, never both, so no user ever holds a
// statement's section while it waits for a transaction's, and nobody deadlocks.
type gates struct {
	list []vuser.Gate
	sems []chan struct{}
	// txn holds, per transaction type, the gates held for the whole transaction;
	// stmt, per transaction type and statement, those held while the statement runs.
	txn  [][]int
	stmt [][][]int
}

// newGates builds m's gates for its transactions in order; nil when it has none.
func newGates(m *Mix) *gates {
	if m.Pool == 0 && len(m.Critical) == 0 {
		return nil
	}
	g := &gates{txn: make([][]int, len(m.Transactions)), stmt: make([][][]int, len(m.Transactions))}
	add := func(gt vuser.Gate) int {
		g.list = append(g.list, gt)
		g.sems = append(g.sems, make(chan struct{}, gt.Holders))
		return len(g.list) - 1
	}
	for i, t := range m.Transactions {
		g.stmt[i] = make([][]int, len(t.Statements))
	}
	if m.Pool > 0 {
		p := add(vuser.Gate{Name: "pool", Kind: "pool", Holders: m.Pool})
		for i := range m.Transactions {
			g.txn[i] = append(g.txn[i], p)
		}
	}
	for _, cs := range m.Critical {
		c := add(vuser.Gate{Name: cs.Name, Kind: "critical", Holders: cs.Holders})
		for i, t := range m.Transactions {
			for _, a := range cs.Around {
				txn, stmt, isStmt := strings.Cut(a, ".")
				if txn != t.Name {
					continue
				}
				if !isStmt {
					g.txn[i] = append(g.txn[i], c)
					continue
				}
				for j, s := range t.Statements {
					if s.Name == stmt {
						g.stmt[i][j] = append(g.stmt[i][j], c)
					}
				}
			}
		}
	}
	return g
}

// enter takes the gates idx in order, adding to waits[gate] the time each kept the
// user waiting. When ctx ends first it gives back what it took and returns ctx's error.
func (g *gates) enter(ctx context.Context, idx []int, waits []time.Duration) error {
	for n, i := range idx {
		select {
		case g.sems[i] <- struct{}{}:
			continue
		default:
		}
		t0 := time.Now()
		select {
		case g.sems[i] <- struct{}{}:
			waits[i] += time.Since(t0)
		case <-ctx.Done():
			waits[i] += time.Since(t0)
			g.leave(idx[:n])
			return ctx.Err()
		}
	}
	return nil
}

// leave gives back the gates idx, the last taken first.
func (g *gates) leave(idx []int) {
	for j := len(idx) - 1; j >= 0; j-- {
		<-g.sems[idx[j]]
	}
}

// Gates implements vuser.Gated: the pool (named pool) and the critical sections.
func (w *Transactions) Gates() []vuser.Gate {
	if w.gates == nil {
		return nil
	}
	return w.gates.list
}
