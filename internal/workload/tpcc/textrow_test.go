package tpcc

import (
	"database/sql"
	"errors"
	"strings"
	"testing"
)

func TestScanText(t *testing.T) {
	var (
		s    string
		n    int
		n64  int64
		f    float64
		a, b any
	)
	row := [][]byte{[]byte("BC"), []byte("3001"), []byte("-9000000000"), []byte("12.50"), []byte("2026-11-23 17:00:00"), nil}
	if err := scanText(row, []any{&s, &n, &n64, &f, &a, &b}); err != nil {
		t.Fatal(err)
	}
	if s != "BC" || n != 3001 || n64 != -9000000000 || f != 12.5 || a != "2026-11-23 17:00:00" || b != nil {
		t.Errorf("scanned %q %d %d %v %v %v", s, n, n64, f, a, b)
	}
	for _, tc := range []struct {
		vals [][]byte
		dest []any
		want string
	}{
		{[][]byte{nil}, []any{&s}, "scan column 1: NULL into *string"},
		{[][]byte{[]byte("12.50")}, []any{&n}, `scan column 1: strconv.Atoi: parsing "12.50"`},
		{[][]byte{[]byte("x")}, []any{new(bool)}, `scan column 1: cannot store "x" in *bool`},
		{[][]byte{[]byte("1"), []byte("2")}, []any{&n}, "scan: 2 columns into 1 destinations"},
	} {
		if err := scanText(tc.vals, tc.dest); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("scan %q: %v, want %q", tc.vals, err, tc.want)
		}
	}
	if err := (textRow{err: sql.ErrNoRows}).Scan(&s); !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("no row: %v", err)
	}
	rows := &textRows{rows: [][][]byte{{[]byte("1")}, {[]byte("2")}}}
	var got []int
	for rows.Next() {
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		got = append(got, n)
	}
	if len(got) != 2 || got[0] != 1 || got[1] != 2 || rows.Err() != nil {
		t.Errorf("rows %v, err %v", got, rows.Err())
	}
}
