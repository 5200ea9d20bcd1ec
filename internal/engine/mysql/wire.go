package mysql

import (
	"context"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"syscall"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"tierbench/internal/engine"
	"tierbench/internal/textfmt"
)

// This file runs prepared statements on a session's connection with MariaDB's binary
// protocol, beneath go-sql-driver (engine.Preparer). The driver dials, authenticates
// and keeps the connection; between two of its commands the connection is idle, and
// a statement sent and read to its end here leaves it idle again. go-sql-driver has
// no API below database/sql's driver interfaces, and its work per statement (reading
// every result into its own structures, converting every value) cost a point select
// 6,200 user-space instructions against 1,800 for a client writing the packets itself
// (callgrind), which kept tierbench at 0.82 of sysbench's TPS on 4 clients.
//
// Protocol: https://mariadb.com/kb/en/clientserver-protocol/ (COM_STMT_PREPARE,
// COM_STMT_EXECUTE, the binary result set, COM_STMT_CLOSE).

// Capability flags read from the handshake response the driver sends.
const (
	capProtocol41      = 1 << 9
	capSSL             = 1 << 11
	capCompress        = 1 << 5
	capDeprecateEOF    = 1 << 24
	capOptionalResMeta = 1 << 25
	// extCacheMetadata is MariaDB's MARIADB_CLIENT_CACHE_METADATA: an execute's
	// result then says whether column definitions follow.
	extCacheMetadata = 1 << 4
)

const (
	comStmtPrepare = 0x16
	comStmtExecute = 0x17
	comStmtClose   = 0x19

	maxPayload = 1<<24 - 1

	statusMoreResults = 0x0008

	flagUnsigned = 32
)

// Column types of the binary protocol.
const (
	typeDecimal    = 0
	typeTiny       = 1
	typeShort      = 2
	typeLong       = 3
	typeFloat      = 4
	typeDouble     = 5
	typeNull       = 6
	typeTimestamp  = 7
	typeLongLong   = 8
	typeInt24      = 9
	typeDate       = 10
	typeTime       = 11
	typeDateTime   = 12
	typeYear       = 13
	typeVarString  = 253
	typeString     = 254
	typeNewDecimal = 246
)

// errBroken is returned by every statement of a link whose connection failed or lost
// step with the server; the driver's connection is closed with it.
var errBroken = errors.New("mysql: the session's connection is broken")

// link is the connection under one driver connection, with what the driver
// negotiated on it. Its methods belong to the session's goroutine.
type link struct {
	nc   net.Conn // the socket itself, not the wrapper the driver writes through
	caps uint32
	ext  uint32
	loc  *time.Location // where time.Time arguments are written, as the driver does
	// The DSN's readTimeout and writeTimeout, which hold here as in the driver.
	readTimeout, writeTimeout time.Duration
	rbuf                      []byte
	r, w                      int    // unread bytes are rbuf[r:w]
	big                       []byte // a payload of several packets
	wbuf                      []byte
	broken                    error
}

// usable reports whether the driver negotiated a connection this file can speak on:
// protocol 4.1, neither TLS nor compression (the link writes to the socket itself),
// and no optional result set metadata (a MySQL 8 flag the driver does not ask for).
func (l *link) usable() bool {
	return l.caps&capProtocol41 != 0 && l.caps&(capSSL|capCompress|capOptionalResMeta) == 0
}

// sniffer is the connection the driver reads and writes through: the socket, and on
// the first write (the handshake response) the capabilities it negotiated are noted.
type sniffer struct {
	net.Conn
	l    *link
	seen bool
}

func (s *sniffer) Write(b []byte) (int, error) {
	if !s.seen {
		s.seen = true
		// header(4) capabilities(4) max packet(4) collation(1) filler(19) MariaDB
		// extended capabilities(4), present when the client has not set CLIENT_MYSQL.
		if len(b) >= 8 {
			s.l.caps = binary.LittleEndian.Uint32(b[4:8])
			if s.l.caps&1 == 0 && len(b) >= 36 {
				s.l.ext = binary.LittleEndian.Uint32(b[32:36])
			}
		}
	}
	return s.Conn.Write(b)
}

// sysSniffer also gives go-sql-driver the descriptor it probes for liveness before
// reusing a pooled connection.
type sysSniffer struct{ *sniffer }

func (s sysSniffer) SyscallConn() (syscall.RawConn, error) {
	return s.Conn.(syscall.Conn).SyscallConn()
}

// linkKey is the context key under which connector.Connect asks the dial function
// for the link of the connection it dials.
type linkKey struct{}

// linkSlot receives the link of the connection dialled under its context.
type linkSlot struct{ l *link }

// sniffDial wraps dial so that a connection dialled under a context with a linkSlot
// gets a link.
func sniffDial(dial func(ctx context.Context, network, addr string) (net.Conn, error), cfg *mysqldrv.Config) func(ctx context.Context, network, addr string) (net.Conn, error) {
	loc := cfg.Loc
	if loc == nil {
		loc = time.UTC
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		slot, ok := ctx.Value(linkKey{}).(*linkSlot)
		if !ok {
			return nc, nil
		}
		if tc, ok := nc.(*net.TCPConn); ok {
			_ = tc.SetKeepAlive(true) // what the driver does for a *net.TCPConn
		}
		slot.l = &link{nc: nc, loc: loc, readTimeout: cfg.ReadTimeout, writeTimeout: cfg.WriteTimeout,
			rbuf: make([]byte, 16<<10)}
		s := &sniffer{Conn: nc, l: slot.l}
		if _, ok := nc.(syscall.Conn); ok {
			return sysSniffer{s}, nil
		}
		return s, nil
	}
}

// fullConn is what go-sql-driver's connection implements; linkConn forwards it all.
type fullConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.NamedValueChecker
	driver.SessionResetter
	driver.Validator
}

// linkConn is a driver connection with its link.
type linkConn struct {
	fullConn
	link *link
}

// connector hands database/sql driver connections that carry their link.
type connector struct{ driver.Connector }

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	slot := &linkSlot{}
	dc, err := c.Connector.Connect(context.WithValue(ctx, linkKey{}, slot))
	if err != nil || slot.l == nil || !slot.l.usable() {
		return dc, err
	}
	fc, ok := dc.(fullConn)
	if !ok {
		return dc, nil
	}
	return linkConn{fullConn: fc, link: slot.l}, nil
}

// column is what decoding a binary row needs of a column definition.
type column struct {
	typ      byte
	flags    uint16
	decimals byte
}

// stmt is a statement prepared on a link.
type stmt struct {
	l      *link
	id     uint32
	params int
	cols   []column
	rows   engine.RowCollector
}

// fail marks the link broken by err and closes the socket, so that the driver's next
// command on it fails too and database/sql drops the connection.
func (l *link) fail(err error) error {
	if l.broken == nil {
		l.broken = err
		_ = l.nc.Close()
	}
	return fmt.Errorf("%w: %v", errBroken, err)
}

// fill makes n bytes readable at rbuf[r:].
func (l *link) fill(n int) error {
	if l.w-l.r >= n {
		return nil
	}
	if l.r > 0 {
		l.w = copy(l.rbuf, l.rbuf[l.r:l.w])
		l.r = 0
	}
	if n > len(l.rbuf) {
		nb := make([]byte, max(n, 2*len(l.rbuf)))
		copy(nb, l.rbuf[:l.w])
		l.rbuf = nb
	}
	if l.readTimeout > 0 {
		if err := l.nc.SetReadDeadline(time.Now().Add(l.readTimeout)); err != nil {
			return err
		}
	}
	got, err := io.ReadAtLeast(l.nc, l.rbuf[l.w:], n-l.w)
	l.w += got
	return err
}

// readPacket returns the next payload, valid until the next read.
func (l *link) readPacket() ([]byte, error) {
	p, err := l.readOne()
	if err != nil {
		return nil, err
	}
	if len(p) == 0 { // every answer this file reads starts with a byte
		return nil, l.fail(errors.New("empty packet"))
	}
	if len(p) < maxPayload {
		return p, nil
	}
	l.big = append(l.big[:0], p...)
	for {
		p, err = l.readOne()
		if err != nil {
			return nil, err
		}
		l.big = append(l.big, p...)
		if len(p) < maxPayload {
			return l.big, nil
		}
	}
}

func (l *link) readOne() ([]byte, error) {
	if err := l.fill(4); err != nil {
		return nil, l.fail(err)
	}
	h := l.rbuf[l.r:]
	size := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	l.r += 4
	if err := l.fill(size); err != nil {
		return nil, l.fail(err)
	}
	p := l.rbuf[l.r : l.r+size]
	l.r += size
	if l.r == l.w {
		l.r, l.w = 0, 0 // nothing buffered: the next fill reads to the start
	}
	return p, nil
}

// startCommand begins a command packet in wbuf, header left for send.
func (l *link) startCommand(cmd byte) {
	l.wbuf = append(l.wbuf[:0], 0, 0, 0, 0, cmd)
}

// send writes wbuf as packets numbered from 0, split at maxPayload bytes.
func (l *link) send() error {
	if l.broken != nil {
		return fmt.Errorf("%w: %v", errBroken, l.broken)
	}
	if l.writeTimeout > 0 {
		if err := l.nc.SetWriteDeadline(time.Now().Add(l.writeTimeout)); err != nil {
			return l.fail(err)
		}
	}
	payload := len(l.wbuf) - 4
	if payload < maxPayload {
		putHeader(l.wbuf, payload, 0)
		if _, err := l.nc.Write(l.wbuf); err != nil {
			return l.fail(err)
		}
		return nil
	}
	data := l.wbuf[4:]
	var h [4]byte
	for seq := byte(0); ; seq++ {
		n := min(len(data), maxPayload)
		putHeader(h[:], n, seq)
		if _, err := l.nc.Write(h[:]); err != nil {
			return l.fail(err)
		}
		if _, err := l.nc.Write(data[:n]); err != nil {
			return l.fail(err)
		}
		data = data[n:]
		if n < maxPayload {
			return nil
		}
	}
}

func putHeader(h []byte, size int, seq byte) {
	h[0], h[1], h[2], h[3] = byte(size), byte(size>>8), byte(size>>16), seq
}

// serverError turns an error packet into the driver's error type, which the retry
// logic and engine error handling read.
func serverError(p []byte) error {
	if len(p) < 3 {
		return &mysqldrv.MySQLError{Message: "malformed error packet"}
	}
	e := &mysqldrv.MySQLError{Number: binary.LittleEndian.Uint16(p[1:3])}
	msg := p[3:]
	if len(msg) >= 6 && msg[0] == '#' {
		copy(e.SQLState[:], msg[1:6])
		msg = msg[6:]
	}
	e.Message = string(msg)
	return e
}

// prepare runs COM_STMT_PREPARE.
func (l *link) prepare(query string) (*stmt, error) {
	l.startCommand(comStmtPrepare)
	l.wbuf = append(l.wbuf, query...)
	if err := l.send(); err != nil {
		return nil, err
	}
	p, err := l.readPacket()
	if err != nil {
		return nil, err
	}
	if p[0] == 0xff {
		return nil, serverError(p)
	}
	if p[0] != 0 || len(p) < 12 {
		return nil, l.fail(fmt.Errorf("malformed COM_STMT_PREPARE answer (%d bytes, first %#x)", len(p), p[0]))
	}
	s := &stmt{l: l, id: binary.LittleEndian.Uint32(p[1:5])}
	ncols := int(binary.LittleEndian.Uint16(p[5:7]))
	s.params = int(binary.LittleEndian.Uint16(p[7:9]))
	if err := l.readColumns(s.params, nil); err != nil {
		return nil, err
	}
	s.cols = make([]column, ncols)
	if err := l.readColumns(ncols, s.cols); err != nil {
		return nil, err
	}
	return s, l.idle()
}

// readColumns reads n column definitions into cols (nil: skip them) and the EOF packet
// after them when the connection still has those.
func (l *link) readColumns(n int, cols []column) error {
	for i := range n {
		p, err := l.readPacket()
		if err != nil {
			return err
		}
		if cols == nil {
			continue
		}
		c, err := parseColumn(p)
		if err != nil {
			return l.fail(err)
		}
		cols[i] = c
	}
	if n > 0 && l.caps&capDeprecateEOF == 0 {
		if _, err := l.readPacket(); err != nil {
			return err
		}
	}
	return nil
}

// parseColumn reads a column definition: catalog, schema, table, original table,
// name and original name, then the fixed fields' length, character set (2), column
// length (4), type (1), flags (2) and decimals (1).
func parseColumn(p []byte) (column, error) {
	bad := errors.New("malformed column definition")
	pos := 0
	for range 6 {
		n, size, ok := lenenc(p[pos:])
		if !ok || uint64(len(p)-pos-size) < n {
			return column{}, bad
		}
		pos += size + int(n)
	}
	_, size, ok := lenenc(p[pos:])
	if !ok || len(p) < pos+size+10 {
		return column{}, bad
	}
	fixed := p[pos+size:]
	return column{typ: fixed[6], flags: binary.LittleEndian.Uint16(fixed[7:9]), decimals: fixed[9]}, nil
}

// idle checks that the answer was read to its end: anything left would be read as
// the answer to the next command.
func (l *link) idle() error {
	if l.r != l.w {
		return l.fail(fmt.Errorf("%d bytes after the server's answer", l.w-l.r))
	}
	if len(l.rbuf) > 1<<20 { // a large value passed: do not keep its buffers
		l.rbuf, l.big = make([]byte, 16<<10), nil
	}
	return nil
}

// lenenc reads a length-encoded integer: its value, its size, and whether p held it.
func lenenc(p []byte) (uint64, int, bool) {
	if len(p) == 0 {
		return 0, 0, false
	}
	switch p[0] {
	case 0xfc:
		if len(p) < 3 {
			return 0, 0, false
		}
		return uint64(binary.LittleEndian.Uint16(p[1:])), 3, true
	case 0xfd:
		if len(p) < 4 {
			return 0, 0, false
		}
		return uint64(p[1]) | uint64(p[2])<<8 | uint64(p[3])<<16, 4, true
	case 0xfe:
		if len(p) < 9 {
			return 0, 0, false
		}
		return binary.LittleEndian.Uint64(p[1:]), 9, true
	case 0xfb: // NULL in a text row; never here
		return 0, 1, true
	}
	return uint64(p[0]), 1, true
}

func appendLenenc(b []byte, n uint64) []byte {
	switch {
	case n < 0xfb:
		return append(b, byte(n))
	case n < 1<<16:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

// execute runs the statement with args and reads its whole answer: the rows (all of
// them with keepAll, else the first) into s.rows, and the rows changed.
func (s *stmt) execute(args []any, keepAll bool) (affected int64, err error) {
	l := s.l
	if len(args) != s.params {
		return 0, fmt.Errorf("%d arguments for %d parameters", len(args), s.params)
	}
	l.startCommand(comStmtExecute)
	l.wbuf = binary.LittleEndian.AppendUint32(l.wbuf, s.id)
	l.wbuf = append(l.wbuf, 0, 1, 0, 0, 0) // no cursor, one iteration
	if s.params > 0 {
		if l.wbuf, err = s.bind(l.wbuf, args); err != nil {
			return 0, err
		}
	}
	if err := l.send(); err != nil {
		return 0, err
	}
	s.rows.Reset()
	for {
		more, n, err := s.readResult(keepAll)
		if err != nil {
			var me *mysqldrv.MySQLError
			if errors.As(err, &me) {
				// An error packet ends the answer.
				if ierr := l.idle(); ierr != nil {
					return 0, ierr
				}
			}
			return 0, err
		}
		affected += n
		if !more {
			break
		}
	}
	return affected, l.idle()
}

// readResult reads one result of an execute's answer; more reports that another
// follows (a stored procedure's).
func (s *stmt) readResult(keepAll bool) (more bool, affected int64, err error) {
	l := s.l
	p, err := l.readPacket()
	if err != nil {
		return false, 0, err
	}
	switch p[0] {
	case 0x00:
		n, status, err := okPacket(p)
		if err != nil {
			return false, 0, l.fail(err)
		}
		return status&statusMoreResults != 0, int64(n), nil
	case 0xff:
		return false, 0, serverError(p)
	case 0xfb:
		return false, 0, l.fail(errors.New("the server asked for a local file, which a prepared statement cannot send"))
	}
	ncols, size, ok := lenenc(p)
	if !ok {
		return false, 0, l.fail(errors.New("malformed result set header"))
	}
	follows := true
	if l.ext&extCacheMetadata != 0 && len(p) > size {
		follows = p[size] == 1
	}
	if follows {
		if int(ncols) != len(s.cols) {
			s.cols = make([]column, ncols)
		}
		if err := l.readColumns(int(ncols), s.cols); err != nil {
			return false, 0, err
		}
	} else {
		if int(ncols) != len(s.cols) {
			return false, 0, l.fail(fmt.Errorf("%d columns, %d described", ncols, len(s.cols)))
		}
		if l.caps&capDeprecateEOF == 0 {
			if _, err := l.readPacket(); err != nil { // the EOF after no definitions
				return false, 0, err
			}
		}
	}
	for {
		p, err := l.readPacket()
		if err != nil {
			return false, 0, err
		}
		switch {
		case p[0] == 0x00:
			if keepAll || s.rows.Len() == 0 {
				if err := s.decodeRow(p); err != nil {
					return false, 0, l.fail(err)
				}
			}
		case p[0] == 0xfe && len(p) < maxPayload:
			status, err := s.endOfRows(p)
			if err != nil {
				return false, 0, l.fail(err)
			}
			return status&statusMoreResults != 0, 0, nil
		case p[0] == 0xff:
			return false, 0, serverError(p)
		default:
			return false, 0, l.fail(fmt.Errorf("unexpected packet %#x in a binary result set", p[0]))
		}
	}
}

// endOfRows reads the status flags of the packet ending a result set: an EOF packet,
// or with CLIENT_DEPRECATE_EOF an OK packet with an 0xFE header.
func (s *stmt) endOfRows(p []byte) (uint16, error) {
	if s.l.caps&capDeprecateEOF == 0 {
		if len(p) < 5 {
			return 0, errors.New("malformed EOF packet")
		}
		return binary.LittleEndian.Uint16(p[3:5]), nil
	}
	_, status, err := okPacket(p)
	return status, err
}

// okPacket reads the rows changed and the status flags of an OK packet.
func okPacket(p []byte) (affected uint64, status uint16, err error) {
	affected, n, ok := lenenc(p[1:])
	if !ok {
		return 0, 0, errors.New("malformed OK packet")
	}
	_, m, ok := lenenc(p[1+n:])
	if !ok || len(p) < 1+n+m+2 {
		return 0, 0, errors.New("malformed OK packet")
	}
	return affected, binary.LittleEndian.Uint16(p[1+n+m:]), nil
}

// bind appends the execute packet's parameters: the NULL bitmap, the types (sent on
// every execute) and the values, as go-sql-driver writes them.
func (s *stmt) bind(b []byte, args []any) ([]byte, error) {
	nullAt := len(b)
	for range (len(args) + 7) / 8 {
		b = append(b, 0)
	}
	b = append(b, 1) // new parameter types follow
	typesAt := len(b)
	for range args {
		b = append(b, 0, 0)
	}
	for i, a := range args {
		typ, unsigned := byte(typeNull), false
		switch v := a.(type) {
		case nil:
			b[nullAt+i/8] |= 1 << (i % 8)
		case int64:
			typ, b = typeLongLong, binary.LittleEndian.AppendUint64(b, uint64(v))
		case int:
			typ, b = typeLongLong, binary.LittleEndian.AppendUint64(b, uint64(v))
		case int32:
			typ, b = typeLongLong, binary.LittleEndian.AppendUint64(b, uint64(v))
		case uint64:
			typ, unsigned, b = typeLongLong, true, binary.LittleEndian.AppendUint64(b, v)
		case uint32:
			typ, unsigned, b = typeLongLong, true, binary.LittleEndian.AppendUint64(b, uint64(v))
		case float64:
			typ, b = typeDouble, binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		case float32:
			typ, b = typeFloat, binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		case bool:
			typ = typeTiny
			if v {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		case string:
			typ = typeString
			b = append(appendLenenc(b, uint64(len(v))), v...)
		case []byte:
			if v == nil {
				b[nullAt+i/8] |= 1 << (i % 8)
				break
			}
			typ = typeString
			b = append(appendLenenc(b, uint64(len(v))), v...)
		case time.Time:
			// As go-sql-driver sends it: text in the connection's location, which the
			// server reads as the parameter's type.
			typ = typeString
			var tb [32]byte
			t, err := appendArgTime(tb[:0], v, s.l.loc)
			if err != nil {
				return nil, fmt.Errorf("argument %d: %w", i+1, err)
			}
			b = append(appendLenenc(b, uint64(len(t))), t...)
		default:
			return nil, fmt.Errorf("argument %d: values of type %T are not supported", i+1, a)
		}
		b[typesAt+2*i] = typ
		if unsigned {
			b[typesAt+2*i+1] = 0x80
		}
	}
	return b, nil
}

// appendArgTime writes a time.Time argument as go-sql-driver does: 0000-00-00 for the
// zero time, the date alone at midnight, else the date and time with the fraction
// it has (to microseconds, MariaDB's precision).
func appendArgTime(b []byte, t time.Time, loc *time.Location) ([]byte, error) {
	if t.IsZero() {
		return append(b, "0000-00-00"...), nil
	}
	t = t.In(loc)
	if y := t.Year(); y < 1 || y > 9999 {
		return nil, fmt.Errorf("year %d is not in the range [1, 9999]", y)
	}
	if h, m, s := t.Clock(); h == 0 && m == 0 && s == 0 && t.Nanosecond() == 0 {
		return t.AppendFormat(b, "2006-01-02"), nil
	}
	return t.AppendFormat(b, "2006-01-02 15:04:05.999999"), nil
}

// decodeRow appends a binary row's values to s.rows in the text form MariaDB's text
// protocol gives them.
func (s *stmt) decodeRow(p []byte) error {
	n := len(s.cols)
	nullLen := (n + 7 + 2) / 8
	if len(p) < 1+nullLen {
		return errors.New("malformed binary row")
	}
	nulls, pos := p[1:1+nullLen], 1+nullLen
	rc := &s.rows
	for i, c := range s.cols {
		if nulls[(i+2)/8]&(1<<((i+2)%8)) != 0 {
			rc.Null()
			continue
		}
		var need int
		switch c.typ {
		case typeTiny:
			need = 1
		case typeShort, typeYear:
			need = 2
		case typeLong, typeInt24, typeFloat:
			need = 4
		case typeLongLong, typeDouble:
			need = 8
		case typeDate, typeDateTime, typeTimestamp, typeTime:
			if pos >= len(p) {
				return errors.New("malformed binary row")
			}
			need = 1 + int(p[pos])
		default:
			v, size, ok := lenenc(p[pos:])
			if !ok || pos+size+int(v) > len(p) {
				return errors.New("malformed binary row")
			}
			rc.Value(p[pos+size : pos+size+int(v)])
			pos += size + int(v)
			continue
		}
		if pos+need > len(p) {
			return errors.New("malformed binary row")
		}
		v := p[pos : pos+need]
		pos += need
		rc.Append(appendText(rc.Buf(), c, v))
	}
	rc.EndRow()
	return nil
}

// appendText appends the text form of v, a fixed-size or temporal binary value of
// column c.
func appendText(b []byte, c column, v []byte) []byte {
	unsigned := c.flags&flagUnsigned != 0
	switch c.typ {
	case typeTiny:
		if unsigned {
			return strconv.AppendUint(b, uint64(v[0]), 10)
		}
		return strconv.AppendInt(b, int64(int8(v[0])), 10)
	case typeShort, typeYear:
		u := binary.LittleEndian.Uint16(v)
		if unsigned || c.typ == typeYear {
			return strconv.AppendUint(b, uint64(u), 10)
		}
		return strconv.AppendInt(b, int64(int16(u)), 10)
	case typeLong, typeInt24:
		u := binary.LittleEndian.Uint32(v)
		if unsigned {
			return strconv.AppendUint(b, uint64(u), 10)
		}
		return strconv.AppendInt(b, int64(int32(u)), 10)
	case typeLongLong:
		u := binary.LittleEndian.Uint64(v)
		if unsigned {
			return strconv.AppendUint(b, u, 10)
		}
		return strconv.AppendInt(b, int64(u), 10)
	case typeFloat:
		return strconv.AppendFloat(b, float64(math.Float32frombits(binary.LittleEndian.Uint32(v))), 'g', -1, 32)
	case typeDouble:
		return strconv.AppendFloat(b, math.Float64frombits(binary.LittleEndian.Uint64(v)), 'g', -1, 64)
	case typeDate, typeDateTime, typeTimestamp:
		return appendDateTime(b, c, v[1:])
	case typeTime:
		return appendTime(b, c, v[1:])
	}
	return b
}

// appendDateTime writes YYYY-MM-DD for a DATE and YYYY-MM-DD hh:mm:ss[.fraction] for
// the others, from 0, 4, 7 or 11 bytes (year(2) month day, hour minute second,
// microseconds(4)).
func appendDateTime(b []byte, c column, v []byte) []byte {
	var year, month, day, hour, minute, second, micro int
	if len(v) >= 4 {
		year, month, day = int(binary.LittleEndian.Uint16(v)), int(v[2]), int(v[3])
	}
	if len(v) >= 7 {
		hour, minute, second = int(v[4]), int(v[5]), int(v[6])
	}
	if len(v) >= 11 {
		micro = int(binary.LittleEndian.Uint32(v[7:]))
	}
	b = textfmt.AppendPadded(b, int64(year), 4)
	b = textfmt.AppendPadded(append(b, '-'), int64(month), 2)
	b = textfmt.AppendPadded(append(b, '-'), int64(day), 2)
	if c.typ == typeDate {
		return b
	}
	b = textfmt.AppendPadded(append(b, ' '), int64(hour), 2)
	b = textfmt.AppendPadded(append(b, ':'), int64(minute), 2)
	b = textfmt.AppendPadded(append(b, ':'), int64(second), 2)
	return appendFraction(b, c, micro)
}

// appendTime writes [-]hh:mm:ss[.fraction], hours counting the days, from 0, 8 or 12
// bytes (negative, days(4), hour, minute, second, microseconds(4)).
func appendTime(b []byte, c column, v []byte) []byte {
	var hours, minute, second, micro int
	if len(v) >= 8 {
		if v[0] == 1 {
			b = append(b, '-')
		}
		hours = int(binary.LittleEndian.Uint32(v[1:]))*24 + int(v[5])
		minute, second = int(v[6]), int(v[7])
	}
	if len(v) >= 12 {
		micro = int(binary.LittleEndian.Uint32(v[8:]))
	}
	b = textfmt.AppendPadded(b, int64(hours), 2)
	b = textfmt.AppendPadded(append(b, ':'), int64(minute), 2)
	b = textfmt.AppendPadded(append(b, ':'), int64(second), 2)
	return appendFraction(b, c, micro)
}

// appendFraction writes the column's declared fractional digits; a column that
// declares none (an expression: decimals 31) gets six when there is a fraction.
func appendFraction(b []byte, c column, micro int) []byte {
	digits := int(c.decimals)
	if digits > 6 {
		digits = 0
		if micro != 0 {
			digits = 6
		}
	}
	if digits == 0 {
		return b
	}
	at := len(b) + 1
	return textfmt.AppendPadded(append(b, '.'), int64(micro), 6)[:at+digits]
}

// close runs COM_STMT_CLOSE, which the server does not answer.
func (s *stmt) close() error {
	s.l.startCommand(comStmtClose)
	s.l.wbuf = binary.LittleEndian.AppendUint32(s.l.wbuf, s.id)
	return s.l.send()
}
