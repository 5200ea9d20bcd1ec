package metrics

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type rec struct {
	N int `json:"n"`
}

func readAll(t *testing.T, text string) ([]int, *TornLine, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []int
	torn, err := ReadJSONLines(path, func(line int, r *rec) error {
		got = append(got, r.N)
		return nil
	})
	return got, torn, err
}

// TestReadJSONLines: complete lines are read; a last line cut short (what kill -9
// leaves) is left out and reported; a bad line anywhere else, or a bad last line that
// has its newline, is an error naming its line.
func TestReadJSONLines(t *testing.T) {
	long := strings.Repeat(" ", 200000) // longer than any scanner's default buffer
	for _, tc := range []struct {
		name, text string
		want       []int
		torn       int // line number, 0 for none
		err        string
	}{
		{"whole", `{"n":1}` + "\n" + `{"n":2}` + "\n", []int{1, 2}, 0, ""},
		{"no final newline", `{"n":1}` + "\n" + `{"n":2}`, []int{1, 2}, 0, ""},
		{"blank lines", "\n" + `{"n":1}` + "\n\n" + `{"n":2}` + "\n\n", []int{1, 2}, 0, ""},
		{"torn last line", `{"n":1}` + "\n" + `{"n":2}` + "\n" + `{"n":3, "valu`, []int{1, 2}, 3, ""},
		{"torn first line", `{"n":`, nil, 1, ""},
		{"long line", `{"n":1,` + long + `"x":0}` + "\n" + `{"n":2}` + "\n", []int{1, 2}, 0, ""},
		{"bad middle line", `{"n":1}` + "\n" + `{"n":` + "\n" + `{"n":3}` + "\n", nil, 0, "x.jsonl, line 2"},
		{"bad last line with its newline", `{"n":1}` + "\n" + `{"n":` + "\n", nil, 0, "x.jsonl, line 2"},
		{"not JSON lines", "hello\n", nil, 0, "x.jsonl, line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, torn, err := readAll(t, tc.text)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err %v, want one naming %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("read %v, want %v", got, tc.want)
			}
			switch {
			case tc.torn == 0 && torn != nil:
				t.Errorf("torn %v, want none", torn)
			case tc.torn != 0 && (torn == nil || torn.Line != tc.torn || !strings.Contains(torn.String(), "torn line")):
				t.Errorf("torn %v, want line %d", torn, tc.torn)
			}
		})
	}
	if _, err := ReadJSONLines(filepath.Join(t.TempDir(), "none"), func(int, *rec) error { return nil }); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
}
