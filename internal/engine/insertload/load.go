package insertload

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Options tune a load.
type Options struct {
	// Param returns the placeholder for the n-th (1-based) parameter.
	Param func(n int) string
	// RowsPerStatement is how many rows one INSERT carries; it is lowered so a
	// statement has at most MaxParams parameters.
	RowsPerStatement int
	MaxParams        int
	// RowsPerTx is how many rows one transaction commits.
	RowsPerTx int
}

// Load inserts the rows read from r into table and returns how many it inserted.
// Values are bound as text; the database converts them to the column types.
func Load(ctx context.Context, conn *sql.Conn, table string, columns []string, r io.Reader, opt Options) (int64, error) {
	if len(columns) == 0 {
		return 0, errors.New("no columns")
	}
	perStmt := opt.RowsPerStatement
	if perStmt <= 0 {
		perStmt = 100
	}
	if opt.MaxParams > 0 && perStmt*len(columns) > opt.MaxParams {
		perStmt = max(1, opt.MaxParams/len(columns))
	}
	perTx := max(opt.RowsPerTx, perStmt)
	l := &loader{ctx: ctx, conn: conn, table: table, columns: columns, param: opt.Param}
	defer l.rollback()

	lines := NewScanner(r, len(columns))
	args := make([]any, 0, perStmt*len(columns))
	var loaded, inTx int64
	flush := func() error {
		n := len(args) / len(columns)
		if n == 0 {
			return nil
		}
		if err := l.insert(n, args); err != nil {
			return fmt.Errorf("insert into %s near line %d: %w", table, lines.Line(), err)
		}
		loaded += int64(n)
		inTx += int64(n)
		args = args[:0]
		if inTx >= int64(perTx) {
			inTx = 0
			return l.commit()
		}
		return nil
	}
	for lines.Scan() {
		for _, f := range lines.Fields() {
			args = append(args, f)
		}
		if len(args) == cap(args) {
			if err := flush(); err != nil {
				return loaded, err
			}
		}
	}
	if err := lines.Err(); err != nil {
		return loaded, fmt.Errorf("read %s data: %w", table, err)
	}
	if err := flush(); err != nil {
		return loaded, err
	}
	return loaded, l.commit()
}

type loader struct {
	ctx     context.Context
	conn    *sql.Conn
	table   string
	columns []string
	param   func(int) string
	tx      *sql.Tx
	stmts   map[int]*sql.Stmt // by rows per statement
}

func (l *loader) insert(rows int, args []any) error {
	if l.tx == nil {
		tx, err := l.conn.BeginTx(l.ctx, nil)
		if err != nil {
			return err
		}
		l.tx, l.stmts = tx, map[int]*sql.Stmt{}
	}
	stmt, ok := l.stmts[rows]
	if !ok {
		var err error
		stmt, err = l.tx.PrepareContext(l.ctx, l.statement(rows))
		if err != nil {
			return err
		}
		l.stmts[rows] = stmt
	}
	_, err := stmt.ExecContext(l.ctx, args...)
	return err
}

func (l *loader) statement(rows int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", l.table, strings.Join(l.columns, ", "))
	n := 0
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for c := range l.columns {
			if c > 0 {
				b.WriteByte(',')
			}
			n++
			b.WriteString(l.param(n))
		}
		b.WriteByte(')')
	}
	return b.String()
}

func (l *loader) commit() error {
	if l.tx == nil {
		return nil
	}
	for _, s := range l.stmts {
		s.Close()
	}
	err := l.tx.Commit()
	l.tx = nil
	if err != nil {
		return fmt.Errorf("commit %s rows: %w", l.table, err)
	}
	return nil
}

func (l *loader) rollback() {
	if l.tx != nil {
		_ = l.tx.Rollback()
		l.tx = nil
	}
}

// Scanner splits dbgen data into rows of fields.
type Scanner struct {
	r       *bufio.Reader
	columns int
	line    int
	fields  []string
	err     error
}

// NewScanner reads rows of the given number of fields.
func NewScanner(r io.Reader, columns int) *Scanner {
	return &Scanner{r: bufio.NewReaderSize(r, 1<<20), columns: columns, fields: make([]string, columns)}
}

// Scan advances to the next row; blank lines are skipped.
func (s *Scanner) Scan() bool {
	for s.err == nil {
		line, err := s.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			big := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = s.r.ReadSlice('\n')
				big = append(big, line...)
			}
			line = big
		}
		if err != nil && !errors.Is(err, io.EOF) {
			s.err = err
			return false
		}
		if len(line) == 0 && err != nil {
			return false
		}
		s.line++
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if err != nil {
				return false
			}
			continue
		}
		line = bytes.TrimSuffix(line, []byte{'|'})
		str := string(line) // one allocation per line; fields share it
		n := strings.Count(str, "|") + 1
		if n != s.columns {
			s.err = fmt.Errorf("line %d has %d fields, want %d", s.line, n, s.columns)
			return false
		}
		for i := 0; i < s.columns-1; i++ {
			j := strings.IndexByte(str, '|')
			s.fields[i], str = str[:j], str[j+1:]
		}
		s.fields[s.columns-1] = str
		return true
	}
	return false
}

// Fields are the current row's fields, valid until the next Scan.
func (s *Scanner) Fields() []string { return s.fields }

// Line is the number of the line read last.
func (s *Scanner) Line() int { return s.line }

// Err is the first read or format error.
func (s *Scanner) Err() error { return s.err }
