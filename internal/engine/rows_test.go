package engine

import (
	"testing"
	"time"
)

func TestCellText(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{nil, "NULL"},
		{[]byte("12.50"), "12.50"},
		{"abc", "abc"},
		{int64(-42), "-42"},
		{12.5, "12.5"},
		{13.0, "13"},
		{226829357828.86685, "226829357828.86685"},
		{1e14, "100000000000000"},
		{1e15, "1e+15"},
		{0.0001, "0.0001"},
		{0.00001, "1e-05"},
		{0.0, "0"},
		{true, "true"},
		{time.Date(1998, 12, 1, 0, 0, 0, 0, time.UTC), "1998-12-01"},
		{time.Date(1998, 12, 1, 10, 30, 0, 0, time.UTC), "1998-12-01 10:30:00"},
	}
	for _, tt := range tests {
		if got := CellText(tt.in); got != tt.want {
			t.Errorf("CellText(%#v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
