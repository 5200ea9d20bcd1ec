package insertload

import (
	"strings"
	"testing"
	"testing/iotest"
)

func TestScanner(t *testing.T) {
	tests := []struct {
		name, in string
		want     [][]string
		wantErr  string
	}{
		{"dbgen", "1|a b|2.50|\n2|c||\n", [][]string{{"1", "a b", "2.50"}, {"2", "c", ""}}, ""},
		{"no trailing bar", "1|a|2\n", [][]string{{"1", "a", "2"}}, ""},
		{"no final newline", "1|a|2|", [][]string{{"1", "a", "2"}}, ""},
		{"crlf and blank lines", "1|a|2|\r\n\n3|b|4|\r\n", [][]string{{"1", "a", "2"}, {"3", "b", "4"}}, ""},
		{"too few fields", "1|a|2|\n3|b|\n", [][]string{{"1", "a", "2"}}, "line 2 has 2 fields, want 3"},
		{"too many fields", "1|a|2|3|\n", nil, "line 1 has 4 fields, want 3"},
		{"long line", "1|" + strings.Repeat("x", 3<<20) + "|2|\n", [][]string{{"1", strings.Repeat("x", 3<<20), "2"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewScanner(iotest.OneByteReader(strings.NewReader(tt.in)), 3)
			var got [][]string
			for s.Scan() {
				got = append(got, append([]string(nil), s.Fields()...))
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d rows, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if strings.Join(got[i], "|") != strings.Join(tt.want[i], "|") {
					t.Errorf("row %d: got %q, want %q", i, got[i], tt.want[i])
				}
			}
			if tt.wantErr == "" && s.Err() != nil || tt.wantErr != "" && (s.Err() == nil || !strings.Contains(s.Err().Error(), tt.wantErr)) {
				t.Errorf("Err() = %v, want %q", s.Err(), tt.wantErr)
			}
		})
	}
}

func TestStatement(t *testing.T) {
	l := &loader{table: "t", columns: []string{"a", "b"}, param: func(n int) string { return "$" + string(rune('0'+n)) }}
	if got, want := l.statement(2), "INSERT INTO t (a, b) VALUES ($1,$2),($3,$4)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
