package tpch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"tierbench/internal/capacity"
	"tierbench/internal/engine"
	"tierbench/internal/workload/tpch/dbgen"
)

// TestNeeds checks the run's estimate against hand-computed sums: the generator
// (256 MiB), S+1 sessions, the database at its bytes per SF, and S update sets
// (1 MB per SF each) in memory or, above updateSetMemory, in files beside the data.
func TestNeeds(t *testing.T) {
	const gen = 256 << 20
	d := &engine.Dialect{Name: "x", Footprint: engine.Footprint{TPCHBytesPerSF: 2e9, TPCHSessionBytes: 10e6}}
	perSession := &engine.Dialect{Name: "lite", Footprint: engine.Footprint{TPCHBytesPerSF: 2e9, TPCHSessionBytes: 10e6, BufferPerSession: true}}
	out := t.TempDir()
	db := filepath.Join(out, "db")
	for _, tc := range []struct {
		name    string
		cfg     RunConfig
		d       *engine.Dialect
		mode    engine.Mode
		streams int
		want    []capacity.Need // What and Basis not compared
	}{
		{"managed, sets in memory", RunConfig{SF: 10, DatabaseDir: db, OutDir: out}, d, engine.Managed, 3,
			[]capacity.Need{{Memory: gen + 4*10e6 + 3*10e6, Disk: 20e9, DiskDir: db}}},
		{"skip load: no database to write", RunConfig{SF: 10, DatabaseDir: db, OutDir: out, SkipLoad: true}, d, engine.Managed, 3,
			[]capacity.Need{{Memory: gen + 4*10e6 + 3*10e6}}},
		{"external: only tierbench's memory", RunConfig{SF: 10, OutDir: out}, d, engine.External, 3,
			[]capacity.Need{{Memory: gen + 3*10e6}}},
		{"a buffer per session", RunConfig{SF: 1, DatabaseDir: db, OutDir: out, BufferBytes: 64 << 20}, perSession, engine.Embedded, 2,
			[]capacity.Need{{Memory: gen + 3*(10e6+64<<20) + 2*1e6, Disk: 2e9, DiskDir: db}}},
		{"sets in files beside the database", RunConfig{SF: 100, DatabaseDir: db, OutDir: out}, d, engine.Managed, 10,
			[]capacity.Need{{Memory: gen + 11*10e6, Disk: 200e9, DiskDir: db}, {Disk: 200e9 + 10*100e6, DiskDir: out}}},
		{"sets in files, database elsewhere", RunConfig{SF: 100, DatabaseDir: "/elsewhere/db", OutDir: out}, d, engine.Managed, 10,
			[]capacity.Need{{Memory: gen + 11*10e6, Disk: 200e9, DiskDir: "/elsewhere/db"}, {Disk: 10 * 100e6, DiskDir: out}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.cfg.needs(tc.d, tc.mode, tc.streams)
			if len(got) != len(tc.want) {
				t.Fatalf("%d needs, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Memory != w.Memory || g.Disk != w.Disk || g.DiskDir != w.DiskDir {
					t.Errorf("need %d: memory %.0f disk %.0f on %q; want memory %.0f disk %.0f on %q",
						i, g.Memory, g.Disk, g.DiskDir, w.Memory, w.Disk, w.DiskDir)
				}
				if want := fmt.Sprintf("tpch run --sf %s --streams %d", formatSF(tc.cfg.SF), tc.streams); g.What != want || g.Basis == "" {
					t.Errorf("need %d: What %q, Basis %q; want What %q and a basis", i, g.What, g.Basis, want)
				}
			}
		})
	}
}

// TestRunRefusesWhatCannotFit: a run whose database cannot fit the disk stops
// before it creates a table or writes a result.
func TestRunRefusesWhatCannotFit(t *testing.T) {
	eng := openSQLite(t)
	out := t.TempDir()
	// SF 10000 of SQLite is some 15 TB; no test machine has that much free.
	_, err := Run(context.Background(), eng, RunConfig{SF: 10000, OutDir: out, Checkpoint: saveIn(out), DatabaseDir: out})
	var tb *capacity.TooBigError
	if !errors.As(err, &tb) || tb.Resource != "disk" || tb.Need.DiskDir != out ||
		!strings.Contains(err.Error(), "tpch run --sf 10000 --streams 9 needs about") || !strings.Contains(err.Error(), "a sqlite database of") {
		t.Fatalf("err %v, want a TooBigError for the disk", err)
	}
	if tableExists(context.Background(), eng.DB(), "lineitem") || tableExists(context.Background(), eng.DB(), stateTable) {
		t.Error("the refused run created tables")
	}
	if _, err := os.Stat(filepath.Join(out, "result.json")); !os.IsNotExist(err) {
		t.Errorf("the refused run wrote result.json (%v)", err)
	}
}

// sessionLimited refuses sessions beyond limit open at once, as a server at its
// max_connections does.
type sessionLimited struct {
	engine.Engine
	limit int
	open  *atomic.Int64
}

type countedSession struct {
	engine.Session
	open *atomic.Int64
}

func (s countedSession) Close() error {
	s.open.Add(-1)
	return s.Session.Close()
}

func (e sessionLimited) Session(ctx context.Context) (engine.Session, error) {
	if e.open.Load() >= int64(e.limit) {
		return nil, errors.New("sorry, too many clients already")
	}
	s, err := e.Engine.Session(ctx)
	if err != nil {
		return nil, err
	}
	e.open.Add(1)
	return countedSession{s, e.open}, nil
}

// TestRunChecksSessionsFirst: a server that takes fewer sessions than the
// throughput test holds stops the run before the load, and the probe gives every
// session back.
func TestRunChecksSessionsFirst(t *testing.T) {
	var open atomic.Int64
	eng := sessionLimited{Engine: openSQLite(t), limit: 3, open: &open}
	_, err := Run(context.Background(), eng, RunConfig{SF: 0.01, Streams: 3})
	if err == nil || !strings.Contains(err.Error(), "3 query streams need 4 sessions at once") || !strings.Contains(err.Error(), "refused session 4") {
		t.Fatalf("err %v, want the session check's", err)
	}
	if tableExists(context.Background(), eng.DB(), "lineitem") {
		t.Error("the run loaded although the sessions did not fit")
	}
	if n := open.Load(); n != 0 {
		t.Errorf("%d sessions left open", n)
	}
	r := newRunner(sessionLimited{Engine: eng.Engine, limit: 4, open: &open}, RunConfig{SF: 0.01, Streams: 3})
	if err := r.checkSessions(context.Background()); err != nil || open.Load() != 0 {
		t.Errorf("4 sessions allowed: %v, %d left open", err, open.Load())
	}
}

// TestCheckUpdateSets: runs on one database share its 999 refreshing update sets.
func TestCheckUpdateSets(t *testing.T) {
	ctx := context.Background()
	e := openSQLite(t)
	for _, tc := range []struct {
		next, streams int
		ok            bool
	}{
		{1, 998, true}, {989, 10, true}, {990, 10, false}, {999, 0, true}, {999, 1, false},
	} {
		r := newRunner(e, RunConfig{SF: 0.01, Streams: tc.streams, SkipLoad: true})
		if err := r.state.create(ctx); err != nil {
			t.Fatal(err)
		}
		if err := r.state.set(ctx, stateNextUpdateSet, strconv.Itoa(tc.next)); err != nil {
			t.Fatal(err)
		}
		r.streams = tc.streams
		err := r.checkUpdateSets(ctx)
		if tc.ok != (err == nil) {
			t.Errorf("next set %d, %d streams: %v, want ok=%v", tc.next, tc.streams, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("at most %d streams", MaxUpdateSets-tc.next)) {
			t.Errorf("next set %d: %v, want the streams that still fit", tc.next, err)
		}
	}
}

// TestMaxUpdateSets pins the bound to dbgen's keys: set 999 deletes base orders, and
// dbgen refuses set 1000, whose deletes would name none.
func TestMaxUpdateSets(t *testing.T) {
	for _, sf := range []float64{0.01, 1, 100000} {
		if got := dbgen.MaxUpdateSet(sf); got != MaxUpdateSets {
			t.Errorf("dbgen.MaxUpdateSet(%v) = %d, want MaxUpdateSets %d", sf, got, MaxUpdateSets)
		}
	}
	var base strings.Builder
	if err := dbgen.Generate(context.Background(), dbgen.Options{SF: 0.01}, map[string]io.Writer{"orders": &base}); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(base.String()), "\n") {
		keys[strings.SplitN(line, "|", 2)[0]] = true
	}
	var del strings.Builder
	if err := dbgen.GenerateUpdate(context.Background(), 0.01, MaxUpdateSets, nil, nil, &del); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(del.String()), "\n")
	found := 0
	for _, line := range lines {
		if keys[strings.TrimSuffix(line, "|")] {
			found++
		}
	}
	if found != len(lines) {
		t.Errorf("update set %d deletes %d of %d base orders, want all", MaxUpdateSets, found, len(lines))
	}
	if err := dbgen.GenerateUpdate(context.Background(), 0.01, MaxUpdateSets+1, nil, nil, &del); err == nil {
		t.Errorf("dbgen generated update set %d", MaxUpdateSets+1)
	}
}
