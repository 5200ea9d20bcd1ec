package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ReadRows reads every row of rows as text (see Rows and CellText) and closes rows.
func ReadRows(rows *sql.Rows) (*Rows, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("read columns: %w", err)
	}
	out := &Rows{Columns: cols}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("read row %d: %w", len(out.Data)+1, err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = CellText(v)
		}
		out.Data = append(out.Data, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// FloatText prints a float as PostgreSQL does: the shortest digits that read back as
// the same value, with an exponent only below 1e-4 or from 1e15 on. SQLite's REAL
// results print the same way (SQLite itself would add ".0" to whole numbers and may
// differ in the 17th digit; answers are compared as numbers).
func FloatText(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	e := strconv.FormatFloat(v, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if v != 0 && (exp < -4 || exp >= 15) {
		return e
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// CellText renders one value a driver returned as the text Rows holds.
func CellText(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(v)
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return FloatText(v)
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 32)
	case bool:
		if v {
			return "true"
		}
		return "false"
	case time.Time:
		if v.Hour() == 0 && v.Minute() == 0 && v.Second() == 0 && v.Nanosecond() == 0 {
			return v.Format("2006-01-02")
		}
		return v.Format("2006-01-02 15:04:05.999999")
	default:
		return fmt.Sprint(v)
	}
}

// ConnSession is a Session on a pinned connection whose driver cancels a statement on
// the server when its context ends (pgx with a cancel-request handler, SQLite's
// interrupt), so nothing more than the context is needed.
type ConnSession struct {
	conn *sql.Conn
}

// NewConnSession pins a connection from db.
func NewConnSession(ctx context.Context, db *sql.DB) (*ConnSession, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	return &ConnSession{conn: conn}, nil
}

func (s *ConnSession) Conn() *sql.Conn { return s.conn }

func (s *ConnSession) Exec(ctx context.Context, query string, args ...any) error {
	_, err := s.conn.ExecContext(ctx, query, args...)
	return Cancelled(ctx, err)
}

func (s *ConnSession) Query(ctx context.Context, query string, args ...any) (*Rows, error) {
	rows, err := s.conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, Cancelled(ctx, err)
	}
	out, err := ReadRows(rows)
	return out, Cancelled(ctx, err)
}

// Cancelled makes an error that a statement got because ctx ended match ctx.Err()
// (context.DeadlineExceeded, context.Canceled) with errors.Is, whatever the server said.
func Cancelled(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil || errors.Is(err, ctx.Err()) {
		return err
	}
	return fmt.Errorf("%w: %w", ctx.Err(), err)
}

func (s *ConnSession) Close() error { return s.conn.Close() }
