package tpch

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/params"
	"tierbench/internal/workload/tpch/dbgen"
)

// gen runs tpch gen with the command line args and returns what it printed.
func gen(t *testing.T, args ...string) (string, error) {
	t.Helper()
	g := NewGenSettings()
	if err := g.Params().FlagSet().Parse(args); err != nil {
		return "", params.FlagError(err)
	}
	var out bytes.Buffer
	err := g.Write(context.Background(), &out)
	return out.String(), err
}

func TestGenBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"update set 0", []string{"--sf", "1", "--update-set", "0"}, "--update-set 0: update sets are numbered from 1; at SF 1 dbgen's refresh data has sets 1 to 999"},
		{"update set beyond", []string{"--sf", "1", "--update-set", "1000"}, "--update-set 1000: at SF 1 dbgen's refresh data has sets 1 to 999"},
		{"updates beyond", []string{"--sf", "10", "--updates", "1000"}, "--updates 1000: at SF 10 dbgen's refresh data has sets 1 to 999"},
		{"both update flags", []string{"--sf", "1", "--updates", "2", "--update-set", "2"}, "--updates 2 and --update-set 2: give one"},
		{"step beyond chunks at SF 100000", []string{"--sf", "100000", "--chunks", "1000000", "--step", "1000001"}, "--step 1000001: with --chunks 1000000 give a step from 1 to 1000000"},
		{"sf beyond 100000", []string{"--sf", "100001"}, "--sf 100001 is too large: TPC-H defines scale factors up to 100000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gen(t, append([]string{"--out", dir}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans several lines: %q", err)
			}
		})
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("refused commands left files: %v", ents)
	}
}

func TestGenUpdateSetAlone(t *testing.T) {
	dir := t.TempDir()
	out, err := gen(t, "--sf", "0.01", "--update-set", "3", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "generated update set 3 at SF 0.01") {
		t.Errorf("output %q does not say what was written", out)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "delete.3 lineitem.tbl.u3 orders.tbl.u3" {
		t.Fatalf("--update-set 3 wrote %s, want set 3 alone", got)
	}
	var o, l, d bytes.Buffer
	if err := dbgen.GenerateUpdate(context.Background(), 0.01, 3, &o, &l, &d); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]byte{"orders.tbl.u3": o.Bytes(), "lineitem.tbl.u3": l.Bytes(), "delete.3": d.Bytes()} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("%s differs from update set 3 (%d bytes, want %d): %v", name, len(got), len(want), err)
		}
	}
	// below SF 30000, set 3 alone is set 3 of "dbgen -U 3"
	all := t.TempDir()
	if _, err := gen(t, "--sf", "0.01", "--updates", "3", "--out", all); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"orders.tbl.u3", "lineitem.tbl.u3", "delete.3"} {
		a, _ := os.ReadFile(filepath.Join(dir, name))
		b, _ := os.ReadFile(filepath.Join(all, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s: --update-set 3 and --updates 3 differ", name)
		}
	}
}
