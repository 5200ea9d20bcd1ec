package postgres

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestTrailingBarFilter(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1|a|2.50|\n2|b|3|\n", "1|a|2.50\n2|b|3\n"},
		{"1|a||\n", "1|a|\n"},
		{"1|a|2|", "1|a|2"},
		{"1|a|2\n", "1|a|2\n"},
		{"", ""},
	}
	for _, tt := range tests {
		for name, r := range map[string]func() io.Reader{
			"whole":    func() io.Reader { return strings.NewReader(tt.in) },
			"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(tt.in)) },
			"half":     func() io.Reader { return iotest.HalfReader(strings.NewReader(tt.in)) },
		} {
			got, err := io.ReadAll(newTrailingBarFilter(r()))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("%s %q: got %q, want %q", name, tt.in, got, tt.want)
			}
		}
	}
}
