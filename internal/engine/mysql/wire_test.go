package mysql

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
)

// TestLenenc: length-encoded integers at each width's bounds read back as written.
func TestLenenc(t *testing.T) {
	for _, n := range []uint64{0, 1, 250, 251, 0xffff, 0x10000, 0xffffff, 0x1000000, math.MaxUint64} {
		b := appendLenenc([]byte{}, n)
		var want int
		switch {
		case n < 251:
			want = 1
		case n < 1<<16:
			want = 3
		case n < 1<<24:
			want = 4
		default:
			want = 9
		}
		got, size, ok := lenenc(b)
		if !ok || got != n || size != want || len(b) != want {
			t.Errorf("%d: encoded in %d bytes, read %d (%d bytes, ok %v); want %d bytes", n, len(b), got, size, ok, want)
		}
		if _, _, ok := lenenc(b[:len(b)-1]); len(b) > 1 && ok {
			t.Errorf("%d: a truncated encoding reads as complete", n)
		}
	}
}

// TestParseColumnMalformed: a truncated column definition is an error, not a panic.
func TestParseColumnMalformed(t *testing.T) {
	full := []byte{3, 'd', 'e', 'f', 0, 0, 0, 1, 'c', 0, 0x0c, 63, 0, 4, 0, 0, 0, typeLong, flagUnsigned, 0, 0, 0, 0}
	c, err := parseColumn(full)
	if err != nil || c.typ != typeLong || c.flags != flagUnsigned {
		t.Fatalf("parseColumn: %+v, %v; want type %d, flags %d", c, err, typeLong, flagUnsigned)
	}
	for n := range len(full) - 2 {
		if _, err := parseColumn(full[:n]); err == nil {
			t.Errorf("%d of %d bytes: no error", n, len(full))
		}
	}
}

// openPreparer opens a session on dsn in client-I/O mode cio, and checks that it has
// the binary-protocol statements.
func openPreparer(t *testing.T, dsn string, cio engine.ClientIO) (engine.Session, engine.Preparer) {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Config{Name: "mysql", DSN: dsn, ClientIO: cio})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	s, err := e.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	pr, ok := s.(engine.Preparer)
	if !ok {
		t.Fatalf("the mysql session (%s) does not implement engine.Preparer", cio)
	}
	return s, pr
}

func texts(row [][]byte) string {
	out := make([]string, len(row))
	for i, v := range row {
		if v == nil {
			out[i] = "NULL"
		} else {
			out[i] = "'" + string(v) + "'"
		}
	}
	return strings.Join(out, " ")
}

// TestPrepared: statements prepared on the binary protocol decode every column type to
// the text MariaDB's text protocol gives for it, encode every kind of argument, tell
// NULL from an empty string, return the first row (Run) or every row and the rows
// changed (Query), report no row and the server's errors as go-sql-driver's
// MySQLError, leave the connection fit for the driver's own statements, carry values
// over 16 MiB (several packets) both ways, stop under a context, and are dropped on
// the server by Close. Both client-I/O modes (the poller and blockio threads) on the
// unix socket, and over TCP.
func TestPrepared(t *testing.T) {
	t.Parallel()
	enginetest.RequireServer(t, Installed())
	ctx := context.Background()
	m, err := engine.Open(ctx, engine.Config{Name: "mysql", Dir: enginetest.ServerDir(t),
		Settings: map[string]string{"max_allowed_packet": "67108864"}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, cio := range []engine.ClientIO{engine.ClientIOPoller, engine.ClientIOThread} {
		t.Run(string(cio), func(t *testing.T) { testPrepared(t, socketDSN(m), cio, string(cio)) })
	}
	t.Run("tcp", func(t *testing.T) {
		addr := tcpProxy(t, filepath.Join(m.(managedEngine).managed.RunDir, "mysqld.sock"))
		testPrepared(t, "root@tcp("+addr+")/tierbench", engine.ClientIOPoller, "tcp")
	})
}

// tcpProxy forwards connections to a loopback TCP port to the unix socket sock (the
// managed server has no TCP listener) and returns the port's address.
func tcpProxy(t *testing.T, sock string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("unix", sock)
			if err != nil {
				c.Close()
				continue
			}
			go func() { io.Copy(u, c); u.Close() }()
			go func() { io.Copy(c, u); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

func testPrepared(t *testing.T, dsn string, cio engine.ClientIO, label string) {
	ctx := context.Background()
	s, pr := openPreparer(t, dsn, cio)
	prepare := func(q string) engine.Prepared {
		t.Helper()
		p, err := pr.Prepare(ctx, q)
		if err != nil {
			t.Fatalf("Prepare(%s): %v", q, err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}
	exec := func(q string) {
		t.Helper()
		if _, err := s.Conn().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	table := "types_" + label
	exec(`CREATE TABLE ` + table + ` (k INT PRIMARY KEY,
		ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED, mi MEDIUMINT, mu MEDIUMINT UNSIGNED,
		i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, f FLOAT, d DOUBLE, dec1 DECIMAL(15,2), dec2 DECIMAL(30,10),
		dt DATE, dtm DATETIME, dtm6 DATETIME(6), ts3 TIMESTAMP(3) NULL, tm TIME, tm6 TIME(6), y YEAR,
		c CHAR(3), vc VARCHAR(20), tx TEXT, bl BLOB, vb VARBINARY(8), en ENUM('a','bb'), st SET('x','y'), bt BIT(8), js JSON)`)
	exec(`INSERT INTO ` + table + ` VALUES
		(1, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295, -9223372036854775808, 18446744073709551615,
		 1.5, -2.25e-300, -12345.67, 12345678901234567890.0123456789,
		 '1998-12-01', '2024-02-29 23:59:58', '2024-02-29 23:59:58.000123', '2024-02-29 23:59:58.5', '-838:59:59', '12:00:00.5', 2155,
		 'ab', '', 'text', X'00FF', X'DEAD', 'bb', 'x,y', b'10000001', '{"a": [1, 2]}'),
		(2, 127, 0, 32767, 0, 8388607, 0, 2147483647, 0, 9223372036854775807, 0,
		 0.1, 1e20, 0, -0.0000000001,
		 '0000-00-00', '0000-00-00 00:00:00', '1970-01-01 00:00:00', NULL, '00:00:00', '-00:00:01.25', 1901,
		 '', 'é€', '', '', '', 'a', '', b'0', 'null'),
		(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
		 NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`)

	// Every column of every row as the text protocol gives it (no arguments: the
	// driver sends COM_QUERY).
	q := `SELECT * FROM ` + table + ` ORDER BY k`
	rows, err := s.Conn().QueryContext(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	var want [][]*string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]*string, len(cols))
		for i := range vals {
			vals[i] = &ptrs[i]
		}
		if err := rows.Scan(vals...); err != nil {
			t.Fatal(err)
		}
		want = append(want, ptrs)
	}
	rows.Close()
	got, err := prepare(q).Query(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(got.Rows), len(want))
	}
	for r := range want {
		for c, w := range want[r] {
			g := got.Rows[r][c]
			switch {
			case w == nil || g == nil:
				if (w == nil) != (g == nil) {
					t.Errorf("row %d %s: NULL mismatch: got %s, text protocol %v", r+1, cols[c], texts([][]byte{g}), w != nil)
				}
			case cols[c] == "f" || cols[c] == "d":
				gf, err1 := strconv.ParseFloat(string(g), 64)
				wf, err2 := strconv.ParseFloat(*w, 64)
				if err1 != nil || err2 != nil || (cols[c] == "d" && gf != wf) || math.Abs(gf-wf) > 1e-6*math.Abs(wf) {
					t.Errorf("row %d %s: %q, text protocol %q", r+1, cols[c], g, *w)
				}
			case string(g) != *w:
				t.Errorf("row %d %s: %q, text protocol %q", r+1, cols[c], g, *w)
			}
		}
	}

	// Arguments of every kind, NULL apart from the empty string.
	p := prepare(`SELECT ? IS NULL, ? IS NULL, ?, ? + 1, ? * 2, ?, HEX(?), CAST(? AS DATETIME(6)), ?, ? + 0, ?, ?`)
	tm := time.Date(2024, 2, 29, 23, 59, 58, 500_000_000, time.UTC)
	row, found, err := p.Run(ctx, []any{nil, "", "", int64(41), 1.25, true, []byte{0xde, 0xad}, tm,
		uint64(math.MaxUint64), "12.50", int(-7), []byte(nil)})
	if err != nil || !found {
		t.Fatalf("Run: found %v, %v", found, err)
	}
	if w := `'1' '0' '' '42' '2.5' '1' 'DEAD' '2024-02-29 23:59:58.500000' '18446744073709551615' '12.5' '-7' NULL`; texts(row) != w {
		t.Errorf("arguments\n got %s\nwant %s", texts(row), w)
	}
	if _, _, err := p.Run(ctx, []any{1, 2}); err == nil || !strings.Contains(err.Error(), "2 arguments for 12 parameters") {
		t.Errorf("missing arguments: %v", err)
	}
	if _, _, err := p.Run(ctx, []any{nil, "", "", struct{}{}, 1.25, true, nil, tm, 1, "1", 1, nil}); err == nil || !strings.Contains(err.Error(), "argument 4: values of type struct {} are not supported") {
		t.Errorf("unsupported argument: %v", err)
	}

	// Text the server gave reads back as the same value of the parameter's type.
	src, _, err := prepare(`SELECT dtm6, dec2, tm6 FROM `+table+` WHERE k = ?`).Run(ctx, []any{1})
	if err != nil {
		t.Fatal(err)
	}
	back := prepare(`SELECT COUNT(*) FROM ` + table + ` WHERE dtm6 = ? AND dec2 = ? AND tm6 = ?`)
	if row, _, err := back.Run(ctx, []any{string(src[0]), string(src[1]), string(src[2])}); err != nil || texts(row) != "'1'" {
		t.Errorf("captured text passed back: %s, %v", texts(row), err)
	}

	// Several rows keep the first; none: found is false.
	many := prepare(`SELECT k FROM ` + table + ` WHERE k >= ? ORDER BY k`)
	if row, found, err := many.Run(ctx, []any{int64(2)}); err != nil || !found || texts(row) != "'2'" {
		t.Errorf("k >= 2: %s %v %v", texts(row), found, err)
	}
	if row, found, err := many.Run(ctx, []any{int64(10)}); err != nil || found || row != nil {
		t.Errorf("no row: %s %v %v", texts(row), found, err)
	}

	// Rows changed, and the server's error as the driver's type.
	upd := prepare(`UPDATE ` + table + ` SET i = i WHERE k <= ?`)
	if res, err := upd.Query(ctx, []any{2}); err != nil || res.Affected != 0 || len(res.Rows) != 0 {
		t.Errorf("UPDATE with no change: %+v, %v; want 0 rows changed (go-sql-driver's default, without clientFoundRows)", res, err)
	}
	del := prepare(`DELETE FROM ` + table + ` WHERE k >= ?`)
	if res, err := del.Query(ctx, []any{3}); err != nil || res.Affected != 1 {
		t.Errorf("DELETE: %+v, %v; want 1 row changed", res, err)
	}
	ins := prepare(`INSERT INTO ` + table + ` (k) VALUES (?)`)
	_, _, err = ins.Run(ctx, []any{1})
	var me *mysqldrv.MySQLError
	if !errors.As(err, &me) || me.Number != 1062 || string(me.SQLState[:]) != "23000" {
		t.Errorf("duplicate key: %v, want MySQL error 1062, SQLSTATE 23000", err)
	}
	if _, err := pr.Prepare(ctx, "SELEC 1"); !errors.As(err, &me) || me.Number != 1064 {
		t.Errorf("Prepare with a syntax error: %v, want MySQL error 1064", err)
	}

	// Over 16 MiB: several packets out and back.
	const big = 17 << 20
	if row, _, err := prepare(`SELECT LENGTH(?), RIGHT(REPEAT('ab', ?), 3)`).Run(ctx, []any{strings.Repeat("x", big), big / 2}); err != nil || texts(row) != "'"+strconv.Itoa(big)+"' 'bab'" {
		t.Errorf("17 MiB argument: %.40s, %v", texts(row), err)
	}
	if row, _, err := prepare(`SELECT REPEAT('y', ?), 7`).Run(ctx, []any{big}); err != nil || len(row) != 2 || len(row[0]) != big || string(row[1]) != "7" {
		t.Errorf("17 MiB value: %d columns, %v", len(row), err)
	}

	// A statement that outlives its context is stopped, and the session goes on.
	sleep := prepare(`SELECT SLEEP(?)`)
	cctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	start := time.Now()
	_, _, err = sleep.Run(cctx, []any{30})
	cancel()
	if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || took > 10*time.Second {
		t.Errorf("SLEEP(30) under a 0.5 s context: %v after %s", err, took)
	}
	if row, _, err := many.Run(ctx, []any{int64(1)}); err != nil || texts(row) != "'1'" {
		t.Errorf("after the cancelled statement: %s, %v", texts(row), err)
	}

	// The driver's own statements still work between ours, and Close drops ours (the
	// subtests run one after another on their own server).
	enginetest.ClosesOnServer(t, s, many, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'PREPARED_STMT_COUNT'")
}

// TestAppendArgTime: time arguments are written as go-sql-driver writes them, in the
// connection's location.
func TestAppendArgTime(t *testing.T) {
	plus2 := time.FixedZone("+02", 2*3600)
	for _, c := range []struct {
		t    time.Time
		want string
	}{
		{time.Time{}, "0000-00-00"},
		{time.Date(1998, 12, 1, 0, 0, 0, 0, time.UTC), "1998-12-01"},
		{time.Date(1998, 12, 1, 0, 0, 0, 0, plus2), "1998-11-30 22:00:00"},
		{time.Date(2024, 2, 29, 23, 59, 58, 123_456_789, time.UTC), "2024-02-29 23:59:58.123456"},
		{time.Date(2024, 2, 29, 23, 59, 58, 500_000_000, time.UTC), "2024-02-29 23:59:58.5"},
	} {
		got, err := appendArgTime(nil, c.t, time.UTC)
		if err != nil || string(got) != c.want {
			t.Errorf("%v: %q, %v; want %q", c.t, got, err, c.want)
		}
	}
	if _, err := appendArgTime(nil, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.UTC); err == nil || !strings.Contains(err.Error(), "year 10000") {
		t.Errorf("year 10000: %v", err)
	}
}

// fakeServer answers one command on a pipe with the given payloads as packets, then
// hangs up.
func fakeServer(t *testing.T, caps uint32, payloads ...[]byte) *stmt {
	t.Helper()
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	go func() {
		var hdr [4]byte
		if _, err := io.ReadFull(server, hdr[:]); err != nil {
			return
		}
		if _, err := io.ReadFull(server, make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)); err != nil {
			return
		}
		// One write, so that the client reads it all at once (net.Pipe hands over a
		// write per read), then hang up.
		var out []byte
		for i, p := range payloads {
			out = append(append(out, byte(len(p)), byte(len(p)>>8), byte(len(p)>>16), byte(i+1)), p...)
		}
		_, _ = server.Write(out)
		server.Close()
	}()
	l := &link{nc: client, caps: caps, loc: time.UTC, rbuf: make([]byte, 64)}
	return &stmt{l: l, id: 1, cols: []column{{typ: typeVarString}, {typ: typeLong, flags: flagUnsigned}}}
}

// TestExecuteFraming: a result set is read to its end with either kind of terminator,
// and an answer that is malformed or overruns breaks the link with a clear error
// instead of a panic or a desynchronised connection.
func TestExecuteFraming(t *testing.T) {
	colDef := func(typ byte, flags byte) []byte {
		return []byte{3, 'd', 'e', 'f', 0, 0, 0, 1, 'c', 0, 0x0c, 63, 0, 4, 0, 0, 0, typ, flags, 0, 0, 0, 0}
	}
	row := []byte{0, 0, 3, 'a', 'b', 'c', 0xff, 0xff, 0xff, 0xff} // NULL bitmap, "abc", 4294967295
	nullRow := []byte{0, 0x0c}                                    // both columns NULL
	okEnd := []byte{0xfe, 0, 0, 2, 0, 0, 0}                       // OK with 0xFE header: status 2
	eof := []byte{0xfe, 0, 0, 2, 0}
	deprecate := uint32(capProtocol41 | capDeprecateEOF)

	s := fakeServer(t, deprecate, []byte{2}, colDef(typeVarString, 0), colDef(typeLong, flagUnsigned), row, nullRow, okEnd)
	if _, err := s.execute(nil, true); err != nil {
		t.Fatal(err)
	}
	rows := s.rows.Rows(0).Rows
	if len(rows) != 2 || texts(rows[0]) != "'abc' '4294967295'" || texts(rows[1]) != "NULL NULL" {
		t.Errorf("rows %v", rows)
	}

	s = fakeServer(t, capProtocol41, []byte{2}, colDef(typeVarString, 0), colDef(typeLong, flagUnsigned), eof, row, eof)
	if _, err := s.execute(nil, false); err != nil || texts(s.rows.First()) != "'abc' '4294967295'" {
		t.Errorf("with EOF packets: %s, %v", texts(s.rows.First()), err)
	}

	for _, c := range []struct {
		name     string
		payloads [][]byte
		want     string
	}{
		{"bytes after the answer", [][]byte{{0, 1, 0, 2, 0, 0, 0}, {0}}, "5 bytes after"},
		{"a truncated row", [][]byte{{2}, colDef(typeVarString, 0), colDef(typeLong, flagUnsigned), row[:8]}, "malformed binary row"},
		{"an empty packet", [][]byte{{}}, "empty packet"},
		{"an unexpected packet", [][]byte{{2}, colDef(typeVarString, 0), colDef(typeLong, flagUnsigned), {0x07}}, "unexpected packet 0x7"},
		{"the server hangs up", nil, "EOF"},
	} {
		s := fakeServer(t, deprecate, c.payloads...)
		_, err := s.execute(nil, true)
		if !errors.Is(err, errBroken) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want the link broken: %s", c.name, err, c.want)
		}
		if _, err := s.execute(nil, true); !errors.Is(err, errBroken) {
			t.Errorf("%s: the next statement: %v, want the link broken", c.name, err)
		}
	}
}

// TestSniffCapabilities: the capabilities come from the driver's first packet, the
// handshake response (or TLS request), and decide whether the link may be used.
func TestSniffCapabilities(t *testing.T) {
	packet := func(caps, ext uint32) []byte {
		b := make([]byte, 4+32)
		binary.LittleEndian.PutUint32(b[4:], caps)
		binary.LittleEndian.PutUint32(b[32:], ext)
		return b
	}
	base := uint32(capProtocol41 | capDeprecateEOF)
	for _, c := range []struct {
		name      string
		caps, ext uint32
		usable    bool
	}{
		{"protocol 4.1", base, extCacheMetadata, true},
		{"TLS", base | capSSL, 0, false},
		{"compression", base | capCompress, 0, false},
		{"optional result set metadata", base | capOptionalResMeta, 0, false},
		{"before protocol 4.1", capDeprecateEOF, 0, false},
	} {
		client, server := net.Pipe()
		go io.Copy(io.Discard, server)
		l := &link{}
		s := &sniffer{Conn: client, l: l}
		for range 2 { // the second packet changes nothing
			if _, err := s.Write(packet(c.caps, c.ext)); err != nil {
				t.Fatal(err)
			}
			c.caps, c.ext = 0, 0
		}
		if l.usable() != c.usable || (c.usable && l.ext != extCacheMetadata) {
			t.Errorf("%s: usable %v, ext %#x; want usable %v", c.name, l.usable(), l.ext, c.usable)
		}
		client.Close()
		server.Close()
	}
}
