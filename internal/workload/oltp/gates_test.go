package oltp

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"tierbench/internal/metrics"
	"tierbench/internal/workload/vuser"
)

const gatedMix = base + `pool: 2
critical:
  - name: reads
    holders: 1
    around: [one.s]
`

// TestGatesParse: the pool and sections as parsed, and every mistake named.
func TestGatesParse(t *testing.T) {
	m, err := Parse("g.yaml", []byte(gatedMix))
	if err != nil {
		t.Fatal(err)
	}
	if m.Pool != 2 || len(m.Critical) != 1 || m.Critical[0].Holders != 1 || m.Critical[0].Around[0] != "one.s" {
		t.Fatalf("pool %d, critical %+v", m.Pool, m.Critical)
	}
	g := newGates(m)
	if len(g.list) != 2 || g.list[0] != (vuser.Gate{Name: "pool", Kind: "pool", Holders: 2}) || g.list[1] != (vuser.Gate{Name: "reads", Kind: "critical", Holders: 1}) {
		t.Errorf("gates %+v", g.list)
	}
	// Transaction one (index 0) takes the pool, and the section around its statement s;
	// two takes the pool only.
	if len(g.txn[0]) != 1 || g.txn[0][0] != 0 || len(g.stmt[0][0]) != 1 || g.stmt[0][0][0] != 1 || len(g.stmt[1][0]) != 0 {
		t.Errorf("txn %v stmt %v", g.txn, g.stmt)
	}
	// A single mapping is a list of one; around a transaction holds it all along.
	one, err := Parse("one.yaml", []byte(base+"critical: {name: all, holders: 3, around: two}\n"))
	if err != nil || one.Pool != 0 || len(one.Critical) != 1 || newGates(one).txn[1][0] != 0 {
		t.Errorf("single section: %+v, %v", one, err)
	}
	for _, tc := range []struct{ name, extra, want string }{
		{"pool 0", "pool: 0\n", "g.yaml:22: pool: 0: give the connections the application has, 1 or more"},
		{"holders 0", "critical: {name: x, holders: 0, around: [one]}\n", "g.yaml:22: critical.holders: 0: at least 1 user must be able to hold it"},
		{"unknown transaction", "critical: {name: x, around: [three]}\n", `g.yaml:22: critical.around: "three": no transaction "three" in the mix (valid: one, two)`},
		{"unknown statement", "critical: {name: x, around: [one.t]}\n", `g.yaml:22: critical.around: "one.t": transaction one has no statement "t"`},
		{"both levels", "critical: {name: x, around: [one, two.s]}\n", `"two.s": section x is around transactions already; a section is around transactions or around statements, not both`},
		{"called pool", "critical: [{name: pool, around: [one]}]\n", "g.yaml:22: critical[0].name: pool is the connection pool's name"},
		{"twice", "critical: [{name: x, around: [one]}, {name: x, around: [two]}]\n", `critical[1].name: critical section "x" declared twice`},
		{"around nothing", "critical: {name: x}\n", "critical.around: name the transactions (new_policy) or statements (read_policy.details) it is around"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("g.yaml", []byte(base+tc.extra))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error:\n%v\nwant one containing:\n%s", err, tc.want)
			}
		})
	}
}

// TestGatesEnter: two holders let two users in without a wait (recorded as exactly
// 0); the third waits until one leaves and records a wait; a fourth, still waiting
// when its context ends, gives back the gates it took before and says why.
func TestGatesEnter(t *testing.T) {
	m, err := Parse("g.yaml", []byte(base+"pool: 3\ncritical: {name: cs, holders: 2, around: [one]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	g := newGates(m)
	path := g.txn[0] // the pool, then cs
	ctx := context.Background()
	w1, w2 := make([]time.Duration, 2), make([]time.Duration, 2)
	if err := g.enter(ctx, path, w1); err != nil || g.enter(ctx, path, w2) != nil || w1[0]+w1[1]+w2[0]+w2[1] != 0 {
		t.Fatalf("the first two: %v, waits %v %v; want no wait", err, w1, w2)
	}
	w3, done := make([]time.Duration, 2), make(chan error)
	go func() { done <- g.enter(ctx, path, w3) }()
	for len(g.sems[0]) != 3 { // the third has the pool and waits for cs
		time.Sleep(time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("the third entered a section two users hold: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	g.leave(path) // the first leaves
	if err := <-done; err != nil || w3[0] != 0 || w3[1] <= 0 {
		t.Fatalf("the third: %v, waits %v; want none for the pool and some for cs", err, w3)
	}
	// Full again (users 2 and 3 in cs). A fourth gets a pool slot and waits for cs.
	cctx, cancel := context.WithCancel(ctx)
	w4 := make([]time.Duration, 2)
	go func() { done <- g.enter(cctx, path, w4) }()
	for len(g.sems[0]) != 3 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || w4[1] <= 0 {
		t.Fatalf("the fourth: %v, waits %v", err, w4)
	}
	if len(g.sems[0]) != 2 || len(g.sems[1]) != 2 {
		t.Errorf("after the fourth gave up: pool %d and cs %d held, want 2 and 2", len(g.sems[0]), len(g.sems[1]))
	}
}

// TestGatesRun: a pool of 2 for 4 users and a section of 1 holder around a statement,
// on SQLite: both keep users waiting, the section only in the transaction whose
// statement it is around, and the summary says so. (How long depends on the host: a
// wait ends when the user runs again, so a busy CPU lengthens it.) With a pool as
// large as the users nobody ever waits: the wait is exactly 0.
func TestGatesRun(t *testing.T) {
	for _, tc := range []struct {
		name             string
		mix              string
		waited, sections bool
	}{
		{"pool of 2, section of 1", gatedMix, true, true},
		{"pool as large as the users", base + "pool: 4\n", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse("g.yaml", []byte(tc.mix))
			if err != nil {
				t.Fatal(err)
			}
			e := openSQLite(t)
			ctx := context.Background()
			if _, err := Load(ctx, e, m, LoadConfig{Seed: 1}); err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			res, err := Run(ctx, e, m, RunConfig{Plan: vuser.Plan{Users: []int{4}, Duration: time.Second, Interval: time.Second, Seed: 1, OutDir: out, Checkpoint: saveIn(out)}})
			if err != nil {
				t.Fatal(err)
			}
			l := res.Levels[0]
			if res.Definitions["app_waits"] == "" || len(l.AppWaits) != 1+len(m.Critical) {
				t.Fatalf("app waits %+v, definition %q", l.AppWaits, res.Definitions["app_waits"])
			}
			pool := l.AppWaits[0]
			if pool.Name != "pool" || pool.SharePct > 100 || (pool.Seconds > 0) != tc.waited || (pool.SharePct > 0) != tc.waited {
				t.Errorf("pool %+v: want waited %v", pool, tc.waited)
			}
			if tc.sections {
				cs := l.AppWaits[1]
				if cs.Name != "reads" || cs.Kind != "critical" || cs.Holders != 1 || cs.SharePct > 100 || cs.Seconds <= 0 {
					t.Errorf("section %+v: want some wait", cs)
				}
				// Only transaction one has a statement in the section.
				if one, two := res.Transactions["one"].Waits["reads"], res.Transactions["two"].Waits["reads"]; one.Seconds <= 0 || two.Seconds != 0 {
					t.Errorf("waits for the section: one %+v, two %+v", one, two)
				}
			}
			var b bytes.Buffer
			WriteSummary(&b, res, m.TxnNames())
			if want := "users waited in the application for the pool (" + map[bool]string{true: "2", false: "4"}[tc.sections] + ")"; !strings.Contains(b.String(), want) {
				t.Errorf("summary lacks %q:\n%s", want, b.String())
			}
		})
	}
}

// TestAppWaitsSummary: the summary's lines for a level whose 8 users waited 12 s of a
// 10 s window for a pool of 4 (1.2 users waiting, 15% of the 80 user-seconds) and
// 2.5 s for a section of 1 (0.25, 3.125% printed to one decimal as 3.1%); per
// transaction only the gates it waited for, in the gates' order, and not at all
// for a transaction that waited for none.
func TestAppWaitsSummary(t *testing.T) {
	l := vuser.LevelReport{
		Users: 8,
		AppWaits: []vuser.AppWait{
			{Gate: vuser.Gate{Name: "pool", Kind: "pool", Holders: 4}, Seconds: 12, Waiting: 1.2, SharePct: 15},
			{Gate: vuser.Gate{Name: "dao", Kind: "critical", Holders: 1}, Seconds: 2.5, Waiting: 0.25, SharePct: 3.125},
		},
		Transactions: map[string]metrics.OpReport{
			"read":  {Count: 100, Waits: map[string]metrics.OpWait{"dao": {Seconds: 2.5, MeanMs: 25}, "pool": {Seconds: 4, MeanMs: 40}}},
			"write": {Count: 50, Waits: map[string]metrics.OpWait{"pool": {Seconds: 8, MeanMs: 160}, "dao": {}}},
			"none":  {Count: 10, Waits: map[string]metrics.OpWait{"pool": {}, "dao": {}}},
		},
	}
	var b bytes.Buffer
	writeAppWaits(&b, l, []string{"read", "write", "none"})
	want := "users waited in the application for the pool (4) 15.0% of their time (1.20 users waiting), critical section dao (1) 3.1% of their time (0.25 users waiting)\n" +
		"  read waited (mean a transaction): pool 40.00 ms, dao 25.00 ms\n" +
		"  write waited (mean a transaction): pool 160.00 ms\n"
	if b.String() != want {
		t.Errorf("summary:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	writeAppWaits(&b, vuser.LevelReport{Users: 8}, []string{"read"})
	if b.Len() != 0 {
		t.Errorf("a level without gates printed %q", b.String())
	}
}
