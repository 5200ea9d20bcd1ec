package postgres

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
	"tierbench/internal/engine/instance"
)

var harness = enginetest.Harness{
	LongSQL:    "SELECT pg_sleep(30)",
	RunningSQL: "SELECT COUNT(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)' AND state = 'active'",
}

// TestManaged runs the suite on a managed cluster, its WAL and temporary files on
// tiers of their own.
func TestManaged(t *testing.T) {
	t.Parallel()
	enginetest.RequireServer(t, Installed())
	harness.RunManaged(t, engine.Config{Name: "postgres", BufferBytes: 32 << 20, Settings: map[string]string{"fsync": "off", "max_connections": "20"}},
		func(set map[string]string) bool {
			return set["shared_buffers"] == "32MB" && set["fsync"] == "off" && set["temp_tablespaces"] == tempTablespace
		}, "wal/postgres-wal", "tmp/postgres-temp")
}

// socketDSN reaches the managed cluster m as an external server would, through its
// socket directory.
func socketDSN(m engine.Engine) string {
	return fmt.Sprintf("host=%s user=%s dbname=tierbench", m.(managedEngine).managed.RunDir, superuser)
}

// TestExternal runs the suite in external mode against TIERBENCH_POSTGRES_DSN, or
// when that is not set against a managed cluster reached through its socket.
func TestExternal(t *testing.T) {
	t.Parallel()
	harness.RunExternal(t, "postgres", "TIERBENCH_POSTGRES_DSN", Installed, socketDSN)
}

// TestSessionCancel: a statement run under a context that never ends stops when
// another goroutine calls the session's Cancel (engine.Canceller), on a thread session
// and on the poller, and the session works afterwards.
func TestSessionCancel(t *testing.T) {
	enginetest.RequireServer(t, Installed())
	enginetest.SessionCancel(t, func(t *testing.T, io engine.ClientIO) engine.Engine {
		e, err := engine.Open(context.Background(), engine.Config{Name: "postgres", Dir: enginetest.ServerDir(t), ClientIO: io})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}, harness.LongSQL)
}

func TestMissingBinaries(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	old := binGlobs
	binGlobs = []string{"/nonexistent/*/bin"}
	defer func() { binGlobs = old }()
	_, err := engine.Open(context.Background(), engine.Config{Name: "postgres", Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "apt-get install postgresql") {
		t.Fatalf("got %v, want a hint to apt-get install postgresql", err)
	}
}

func TestKeepAndReuse(t *testing.T) {
	t.Parallel()
	enginetest.RequireServer(t, Installed())
	dir := enginetest.ServerDir(t)
	ctx := context.Background()
	cfg := engine.Config{Name: "postgres", Dir: dir, Database: "tpch", Keep: true}
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB().Exec("CREATE TABLE kept (a INTEGER); INSERT INTO kept VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "postgres", "PG_VERSION")); err != nil {
		t.Fatalf("Keep: cluster gone: %v", err)
	}
	cfg.Keep = false // a reused cluster is never removed: this run did not create it
	e, err = engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var a int
	if err := e.DB().QueryRow("SELECT a FROM kept").Scan(&a); err != nil || a != 7 {
		t.Errorf("reused cluster: a=%d err=%v", a, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "postgres", "PG_VERSION")); err != nil {
		t.Errorf("reused cluster removed: %v", err)
	}
}

// TestServerDiesWithTierbench kills a process running a managed cluster with SIGKILL
// and checks that the server goes with it (Pdeathsig).
func TestServerDiesWithTierbench(t *testing.T) {
	if dir := os.Getenv("TIERBENCH_PDEATHSIG_HELPER"); dir != "" {
		e, err := engine.Open(context.Background(), engine.Config{Name: "postgres", Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("PID %d %s\n", e.(engine.Server).ServerPID(), e.(managedEngine).managed.RunDir)
		select {}
	}
	enginetest.RequireServer(t, Installed())
	dir := enginetest.ServerDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerDiesWithTierbench$")
	cmd.Env = append(os.Environ(), "TIERBENCH_PDEATHSIG_HELPER="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	var runDir string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "PID %d %s", &pid, &runDir); err == nil {
			t.Cleanup(func() { os.RemoveAll(runDir) }) // the killed helper could not
			break
		}
	}
	if pid == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("helper did not start a server")
	}
	cmd.Process.Kill()
	cmd.Wait()
	// SIGQUIT: the postmaster waits for its children (up to 5 s before it kills them),
	// so the bound leaves room for that on a loaded host; a server that survives stays.
	deadline := time.Now().Add(30 * time.Second)
	for instance.Alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(-pid, syscall.SIGKILL)
			t.Fatalf("server %d outlived its parent", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestConnectionLimit: a managed cluster's max_connections follows the run's sessions
// (PostgreSQL's default, 100, is below the check's 150) unless the user set it.
func TestConnectionLimit(t *testing.T) {
	t.Parallel()
	enginetest.RequireServer(t, Installed())
	enginetest.ConnectionLimit(t, "postgres", "SHOW max_connections")
}

// TestPrepared: the session's own prepared statements (engine.Preparer) encode every
// kind of argument as pgx does, tell NULL from an empty string both ways, return the
// first row (Run) or every row and the rows changed (Query) as text that reads back as
// the same value, report no row and the server's errors (SQLSTATE kept for the retry
// logic), and are dropped on the server by Close.
func TestPrepared(t *testing.T) {
	t.Parallel()
	enginetest.RequireServer(t, Installed())
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Name: "postgres", Dir: enginetest.ServerDir(t), ClientIO: engine.ClientIOThread, Sessions: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s, err := e.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pr, ok := s.(engine.Preparer)
	if !ok {
		t.Fatal("the postgres session does not implement engine.Preparer")
	}
	prepare := func(q string) engine.Prepared {
		t.Helper()
		p, err := pr.Prepare(ctx, q)
		if err != nil {
			t.Fatalf("Prepare(%s): %v", q, err)
		}
		return p
	}
	texts := func(row [][]byte) []string {
		out := make([]string, len(row))
		for i, v := range row {
			if v == nil {
				out[i] = "NULL"
			} else {
				out[i] = "'" + string(v) + "'"
			}
		}
		return out
	}

	p := prepare(`SELECT $1::text IS NULL, $2::text IS NULL, $2::text, $3::int8 + 1, $4::float8 * 2,
		$5::bool, $6::date + 1, $7::timestamptz AT TIME ZONE 'UTC', $8::numeric(15,2) * 2, $9::bytea, NULL::text, ''::text`)
	ts := time.Date(2024, 2, 29, 23, 59, 58, 500_000_000, time.UTC)
	row, found, err := p.Run(ctx, []any{nil, "", int64(41), 1.25, true, time.Date(1998, 12, 31, 0, 0, 0, 0, time.UTC), ts, "12.50", []byte{0xde, 0xad}})
	if err != nil || !found {
		t.Fatalf("Run: found %v, %v", found, err)
	}
	want := []string{"'t'", "'f'", "''", "'42'", "'2.5'", "'t'", "'1999-01-01'", "'2024-02-29 23:59:58.5'", "'25.00'", `'\xdead'`, "NULL", "''"}
	if got := texts(row); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("first row\n got %v\nwant %v", got, want)
	}

	// Alone in its statement, an empty string is still not NULL, either way.
	echo := prepare(`SELECT $1::text`)
	if row, _, err := echo.Run(ctx, []any{""}); err != nil || strings.Join(texts(row), " ") != "''" {
		t.Errorf(`SELECT $1::text with "": %v, %v; want ''`, texts(row), err)
	}
	if row, _, err := echo.Run(ctx, []any{nil}); err != nil || strings.Join(texts(row), " ") != "NULL" {
		t.Errorf("SELECT $1::text with nil: %v, %v; want NULL", texts(row), err)
	}

	// Text the server printed reads back as the same value of the parameter's type.
	back := prepare(`SELECT $1::timestamptz = '2024-02-29 23:59:58.5+00', $2::bytea = '\xdead'::bytea, $3::numeric = 25`)
	now := prepare(`SELECT '2024-02-29 23:59:58.5+00'::timestamptz, '\xdead'::bytea, 25.00::numeric(15,2)`)
	src, _, err := now.Run(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	args := []any{string(src[0]), string(src[1]), string(src[2])}
	row, _, err = back.Run(ctx, args)
	if err != nil || strings.Join(texts(row), " ") != "'t' 't' 't'" {
		t.Errorf("captured text passed back: %v, %v", texts(row), err)
	}

	// Several rows: the first one is kept; none: found is false.
	many := prepare(`SELECT g FROM generate_series(7, 9) g WHERE g >= $1 ORDER BY g`)
	if row, found, err := many.Run(ctx, []any{int64(8)}); err != nil || !found || string(row[0]) != "8" {
		t.Errorf("generate_series from 8: %v %v %v", texts(row), found, err)
	}
	if row, found, err := many.Run(ctx, []any{int64(10)}); err != nil || found || row != nil {
		t.Errorf("no row: %v %v %v", texts(row), found, err)
	}
	if _, _, err := many.Run(ctx, nil); err == nil || !strings.Contains(err.Error(), "0 arguments for 1 parameters") {
		t.Errorf("missing argument: %v", err)
	}

	// A statement without rows, and the server's error with its SQLSTATE.
	ddl := prepare(`CREATE TEMP TABLE t (k int PRIMARY KEY)`)
	if _, found, err := ddl.Run(ctx, nil); err != nil || found {
		t.Fatalf("CREATE: %v %v", found, err)
	}
	ins := prepare(`INSERT INTO t VALUES ($1)`)
	if _, _, err := ins.Run(ctx, []any{int64(1)}); err != nil {
		t.Fatal(err)
	}
	_, _, err = ins.Run(ctx, []any{int64(1)})
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		t.Errorf("duplicate key: %v, want SQLSTATE 23505", err)
	}

	// Query: every row, NULLs and empty strings kept apart, and the rows changed.
	all := prepare(`SELECT g, CASE WHEN g = 8 THEN NULL ELSE '' END FROM generate_series(7, $1::int) g ORDER BY g`)
	rows, err := all.Query(ctx, []any{9})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows.Rows {
		got = append(got, strings.Join(texts(r), ","))
	}
	if strings.Join(got, " ") != "'7','' '8',NULL '9',''" || rows.Affected != 3 {
		t.Errorf("Query rows %v, affected %d; want '7','' '8',NULL '9','' and 3", got, rows.Affected)
	}
	upd := prepare(`UPDATE t SET k = k + $1 WHERE k >= 1`)
	if rows, err := upd.Query(ctx, []any{10}); err != nil || rows.Affected != 1 || len(rows.Rows) != 0 {
		t.Errorf("UPDATE: %+v, %v; want 1 row changed, none returned", rows, err)
	}

	enginetest.ClosesOnServer(t, s, many, "SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'tierbench_%'")
}

// TestKilledPostmasterLeavesNoSharedMemory: a postmaster killed with SIGKILL leaves its
// System V header segment and its files in /dev/shm; closing the engine removes every
// one its processes had mapped, as a restart on the same data directory would have.
func TestKilledPostmasterLeavesNoSharedMemory(t *testing.T) {
	enginetest.RequireServer(t, Installed())
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Name: "postgres", Dir: enginetest.ServerDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// Statistics of many tables outgrow the cumulative statistics' area in the main
	// shared memory: it adds a dynamic segment, which the backend that grew it maps.
	conn, err := e.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "DO $$ BEGIN FOR i IN 1..1000 LOOP EXECUTE format('CREATE TABLE t%s (a int); INSERT INTO t%s VALUES (1)', i, i); END LOOP; END $$"); err != nil {
		t.Fatal(err)
	}
	pid := e.(managedEngine).ServerPID()
	var files []string
	for deadline := time.Now().Add(10 * time.Second); len(files) < 2 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if _, err := conn.ExecContext(ctx, "SELECT pg_stat_force_next_flush(); SELECT count(*) FROM pg_stat_user_tables"); err != nil {
			t.Fatal(err)
		}
		files = mappedShm(t, pid)
	}
	t.Logf("mapped: %v", files)
	segments := sysvSegments(pid)
	if len(files) < 2 || len(segments) == 0 {
		t.Fatalf("the server maps no dynamic segment besides the control segment (%v) or has no System V segment (%v): nothing to check", files, segments)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err == nil {
		t.Log("close after the kill succeeded")
	}
	for _, f := range files {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind (%v)", f, err)
		}
	}
	for _, s := range segments {
		if n := attached(s.id); n >= 0 {
			t.Errorf("System V segment %d left behind (%d attached)", s.id, n)
		}
	}
}

// mappedShm lists the /dev/shm files the postmaster postmaster and its children (each
// a session leader of its own) map.
func mappedShm(t *testing.T, postmaster int) []string {
	t.Helper()
	procs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", p.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: the fields after the last ')'.
		after := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(after) < 2 || (pid != postmaster && after[1] != strconv.Itoa(postmaster)) {
			continue
		}
		maps, err := os.ReadFile(filepath.Join("/proc", p.Name(), "maps"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(maps), "\n") {
			if i := strings.Index(line, shmDir+"/PostgreSQL."); i >= 0 {
				seen[strings.TrimSuffix(line[i:], " (deleted)")] = true
			}
		}
	}
	var out []string
	for f := range seen {
		out = append(out, f)
	}
	return out
}

// TestSettings: the installed server refuses what it would refuse at start, before
// anything starts; once it runs, each setting is read back from pg_settings: verified
// when it came from the command line, unverified when it is a custom parameter no
// library defines (docs/engines.md, "Settings: --set").
func TestSettings(t *testing.T) {
	enginetest.RequireServer(t, Installed())
	enginetest.Settings(t, "postgres", []enginetest.RefusedSetting{
		{Settings: map[string]string{"work_mem": "abc"}, Says: []string{`work_mem=abc: PostgreSQL refuses it: invalid value for parameter "work_mem": "abc"`}},
		{Settings: map[string]string{"nosuch": "1", "work_mem": "64MB"}, Says: []string{`nosuch=1: PostgreSQL refuses it: unrecognized configuration parameter "nosuch"`}},
		{Settings: map[string]string{"wal_sync_method": "nope"}, Says: []string{"Available values: fsync, fdatasync"}},
		{Settings: map[string]string{"work_mem": "1"}, Says: []string{`1 kB is outside the valid range for parameter "work_mem"`}},
		{Settings: map[string]string{"enable_seqscan": "maybe"}, Says: []string{`parameter "enable_seqscan" requires a Boolean value`}},
	}, map[string]string{"work_mem": "8MB", "enable_seqscan": "of", "tierbench.note": "x"}, []engine.AppliedSetting{
		{Name: "enable_seqscan", Requested: "of", Value: "off", Verified: true},
		{Name: "tierbench.note", Requested: "x", Value: "x", Why: "a custom parameter no loaded library defines: PostgreSQL keeps it without using it"},
		{Name: "work_mem", Requested: "8MB", Value: "8MB", Verified: true},
	}, func(t *testing.T, settings map[string]string) engine.Engine {
		e, err := engine.Open(context.Background(), engine.Config{Name: "postgres", Dir: enginetest.ServerDir(t), Settings: settings})
		if err != nil {
			t.Fatal(err)
		}
		return e
	})
}
