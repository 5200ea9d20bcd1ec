package mysql

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
)

var harness = enginetest.Harness{
	LongSQL:    "SELECT SLEEP(30)",
	RunningSQL: "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO = 'SELECT SLEEP(30)'",
}

// TestManaged runs the suite on a managed instance, its redo log and temporary
// files on tiers of their own.
func TestManaged(t *testing.T) {
	t.Parallel()
	enginetest.RequireServer(t, Installed())
	harness.RunManaged(t, engine.Config{Name: "mysql", BufferBytes: 64 << 20, Settings: map[string]string{"innodb_flush_log_at_trx_commit": "2"}},
		func(set map[string]string) bool {
			return set["innodb_buffer_pool_size"] == "67108864" && set["innodb_flush_log_at_trx_commit"] == "2" && strings.HasSuffix(set["tmpdir"], "mysql-temp")
		}, "wal/mysql-redo", "tmp/mysql-temp")
}

// socketDSN reaches the managed instance m as an external server would, through its
// socket.
func socketDSN(m engine.Engine) string {
	return "root@unix(" + filepath.Join(m.(managedEngine).managed.RunDir, "mysqld.sock") + ")/tierbench"
}

// TestExternal runs the suite in external mode against TIERBENCH_MYSQL_DSN, or when
// that is not set against a managed instance reached through its socket.
func TestExternal(t *testing.T) {
	t.Parallel()
	harness.RunExternal(t, "mysql", "TIERBENCH_MYSQL_DSN", Installed, socketDSN)
}

func TestMissingBinaries(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	old := binGlobs
	binGlobs = []string{"/nonexistent"}
	defer func() { binGlobs = old }()
	_, err := engine.Open(context.Background(), engine.Config{Name: "mysql", Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "apt-get install mariadb-server") {
		t.Fatalf("got %v, want a hint to apt-get install mariadb-server", err)
	}
}

// TestLoadWithoutLocalInfile checks the fallback for servers with local_infile off.
func TestLoadWithoutLocalInfile(t *testing.T) {
	t.Parallel()
	enginetest.RequireServer(t, Installed())
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Name: "mysql", Dir: enginetest.ServerDir(t), Settings: map[string]string{"local-infile": "0"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.DB().Exec("CREATE TABLE nolocal (id INTEGER, amount DECIMAL(15,2), d DATE, note VARCHAR(25))"); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 1; i <= 1234; i++ {
		fmt.Fprintf(&b, "%d|%d.25|1998-12-01|n%d|\n", i, i, i)
	}
	n, err := e.Load(ctx, "nolocal", []string{"id", "amount", "d", "note"}, strings.NewReader(b.String()))
	if err != nil || n != 1234 {
		t.Fatalf("Load: n=%d err=%v", n, err)
	}
	var sum string
	if err := e.DB().QueryRow("SELECT SUM(amount) FROM nolocal").Scan(&sum); err != nil || sum != "762303.50" {
		t.Errorf("sum %s err %v", sum, err)
	}
	info, err := e.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.Settings["load_method"], "insert") {
		t.Errorf("load_method = %q", info.Settings["load_method"])
	}
}

// TestSessionCancel: a statement run under a context that never ends stops when
// another goroutine calls the session's Cancel (engine.Canceller), whether the session
// waits on a thread or in the poller; a thread session's socket is a blockio one.
func TestSessionCancel(t *testing.T) {
	enginetest.RequireServer(t, Installed())
	m, err := engine.Open(context.Background(), engine.Config{Name: "mysql", Dir: enginetest.ServerDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// External engines on the managed instance's socket, in each client-I/O mode.
	enginetest.SessionCancel(t, func(t *testing.T, io engine.ClientIO) engine.Engine {
		e, err := engine.Open(context.Background(), engine.Config{Name: "mysql", DSN: socketDSN(m), ClientIO: io})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}, harness.LongSQL)
}

// TestThreadSessionReadTimeout: a DSN's readTimeout holds on a session that waits on
// its own thread (blockio deadlines).
func TestThreadSessionReadTimeout(t *testing.T) {
	enginetest.RequireServer(t, Installed())
	e, err := engine.Open(context.Background(), engine.Config{Name: "mysql", Dir: enginetest.ServerDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	dsn := socketDSN(e) + "?readTimeout=1s"
	ext, err := engine.Open(context.Background(), engine.Config{Name: "mysql", DSN: dsn, ClientIO: engine.ClientIOThread})
	if err != nil {
		t.Fatal(err)
	}
	defer ext.Close()
	s, err := ext.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	var slept int
	err = s.Conn().QueryRowContext(context.Background(), "SELECT SLEEP(20)").Scan(&slept)
	if took := time.Since(start); err == nil || took > 10*time.Second {
		t.Fatalf("SELECT SLEEP(20) with readTimeout=1s: took %s, error %v; want an error after about a second", took, err)
	}
}

func TestIOBytesSum(t *testing.T) {
	io, err := ioBytes([][]string{{"Innodb_data_read", "2785280"}, {"Innodb_data_written", "7569408"},
		{"Innodb_os_log_written", "25833033"}})
	if err != nil {
		t.Fatal(err)
	}
	if io.Read != 2785280 || io.Written != 7569408+25833033 || io.Log != 25833033 {
		t.Errorf("ioBytes = %+v, want read 2785280, written 33402441, of which log 25833033", io)
	}
	if _, err := ioBytes([][]string{{"Innodb_data_read", "1"}, {"Innodb_data_written", "2"}}); err == nil ||
		!strings.Contains(err.Error(), "Innodb_os_log_written") {
		t.Errorf("a missing variable: err = %v, want it named", err)
	}
	if _, err := ioBytes([][]string{{"Innodb_data_read", "x"}}); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("a value that is not a number: err = %v", err)
	}
}

// TestConnectionLimit: a managed instance's max_connections follows the run's sessions
// (MariaDB's default, 151, is just above the check's 150, not above 150 plus tierbench's
// own) unless the user set it.
func TestConnectionLimit(t *testing.T) {
	t.Parallel()
	enginetest.RequireServer(t, Installed())
	enginetest.ConnectionLimit(t, "mysql", "SELECT @@max_connections")
}

// TestSettings: MariaDB starts on a setting it ignores (an invalid boolean keeps the
// default) or changes (a number out of range is adjusted), saying so only in its log;
// tierbench asks the installed server to parse the settings first, reads its log
// after the start and reads each setting back (docs/engines.md, "Settings: --set").
func TestSettings(t *testing.T) {
	enginetest.RequireServer(t, Installed())
	enginetest.Settings(t, "mysql", []enginetest.RefusedSetting{
		{Settings: map[string]string{"nosuch": "1"}, Says: []string{"nosuch=1: the server does not take it: ", "unknown variable 'nosuch=1'"}},
		{Settings: map[string]string{"innodb_use_native_aio": "maybe"}, Says: []string{"innodb_use_native_aio=maybe: the server does not take it: ", "ignoring option '--innodb-use-native-aio' due to invalid value 'maybe'"}},
		{Settings: map[string]string{"sort_buffer_size": "1"}, Says: []string{"sort_buffer_size=1: the server does not take it: ", "option 'sort_buffer_size': unsigned value 1 adjusted to 1024"}},
		{Settings: map[string]string{"innodb-buffer-pool-size": "abc", "sort_buffer_size": "4M"}, Says: []string{"innodb-buffer-pool-size=abc: the server does not take it: ", "'abc'"}},
	}, map[string]string{"sort-buffer-size": "1M", "max_heap_table_size": "32M", "innodb_use_native_aio": "0", "skip-name-resolve": "1"}, []engine.AppliedSetting{
		{Name: "innodb_use_native_aio", Requested: "0", Value: "OFF", Verified: true},
		{Name: "max_heap_table_size", Requested: "32M", Value: "33554432", Verified: true},
		{Name: "skip-name-resolve", Requested: "1", Value: "ON", Verified: true},
		{Name: "sort-buffer-size", Requested: "1M", Value: "1048576", Verified: true},
	}, func(t *testing.T, settings map[string]string) engine.Engine {
		e, err := engine.Open(context.Background(), engine.Config{Name: "mysql", Dir: enginetest.ServerDir(t), Settings: settings})
		if err != nil {
			t.Fatal(err)
		}
		return e
	})
}

// TestSameValue: values given and held compare as numbers with MariaDB's suffixes, as
// booleans, else as text.
func TestSameValue(t *testing.T) {
	for _, tc := range []struct {
		given, held      string
		same, comparable bool
	}{
		{"64M", "67108864", true, true},
		{"1k", "1024", true, true},
		{"100M", "134217728", false, true},
		{"0", "OFF", true, true},
		{"on", "ON", true, true},
		{"true", "OFF", false, true},
		{"fsync", "fsync", true, false},
		{"O_DIRECT", "o_direct", true, false},
		{"TRADITIONAL", "STRICT_TRANS_TABLES,STRICT_ALL_TABLES", false, false},
	} {
		if same, comparable := sameValue(tc.given, tc.held); same != tc.same || comparable != tc.comparable {
			t.Errorf("%q against %q: same %v comparable %v", tc.given, tc.held, same, comparable)
		}
	}
}

// TestRefusal reads a server's log for the lines that name a setting: an error or a
// warning that it ignored or changed it is a refusal; a deprecation, or a line about
// something else, is not.
func TestRefusal(t *testing.T) {
	settings := map[string]string{"innodb_flush_method": "fsync", "sort-buffer-size": "1"}
	for _, tc := range []struct {
		log, refused string
	}{
		{"2026-11-28  2:19:55 0 [Warning] option 'sort_buffer_size': unsigned value 1 adjusted to 1024\n", "sort-buffer-size"},
		{"2026-11-28  2:19:55 0 [ERROR] mariadbd: Error while setting value 'x' to 'innodb-flush-method'\n", "innodb_flush_method"},
		{"2026-11-28  2:19:55 0 [Warning] 'innodb-flush-method' is deprecated and will be removed in a future release\n", ""},
		{"2026-11-28  2:19:55 0 [Warning] Could not increase number of max_open_files to more than 20000 (request: 32184)\n", ""},
		{"2026-11-28  2:19:55 0 [Note] option 'sort_buffer_size' is fine\n", ""},
	} {
		err := refusal(tc.log, settings)
		var se *engine.SettingError
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("%q: %v, want no refusal", tc.log, err)
		case tc.refused != "" && (!errors.As(err, &se) || se.Name != tc.refused):
			t.Errorf("%q: %v, want %s refused", tc.log, err, tc.refused)
		}
	}
}
