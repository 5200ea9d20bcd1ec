package monitor

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTornSamples: metrics.jsonl cut in the middle of its last line (a run killed
// while the monitor wrote) is read up to its last complete sample, by the report's
// reader and by the CSV conversion, and both say that the last line was torn; a bad
// line before the end is still an error naming it.
func TestTornSamples(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, JSONLinesFile)
	lines := `{"time":"2026-01-02T03:04:05Z","elapsed_s":0,"values":{"host.cpu.all.busy_pct":50}}
{"time":"2026-01-02T03:04:06Z","elapsed_s":1,"values":{"host.cpu.all.busy_pct":60}}
{"time":"2026-01-02T03:04:07Z","elapsed_s":2,"values":{"host.cpu.all.bu`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	samples, torn, err := ReadSamples(path)
	if err != nil || len(samples) != 2 || samples[1].Values["host.cpu.all.busy_pct"] != 60 {
		t.Fatalf("ReadSamples: %d samples, %v", len(samples), err)
	}
	if torn == nil || torn.Line != 3 || !strings.Contains(torn.String(), "its 2 complete lines are used") {
		t.Errorf("torn %v, want line 3 with 2 complete lines", torn)
	}
	out := filepath.Join(dir, CSVFile)
	torn, err = WriteCSV(path, out)
	if err != nil || torn == nil || torn.Line != 3 {
		t.Fatalf("WriteCSV: torn %v, %v", torn, err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 3 || rows[2][3] != "60" {
		t.Errorf("metrics.csv: %v, %v; want the header and the two complete samples", rows, err)
	}

	bad := strings.Replace(lines, `"elapsed_s":1,`, `"elapsed_s":1,,`, 1) + "\n"
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadSamples(path); err == nil || !strings.Contains(err.Error(), path+", line 2") {
		t.Errorf("a bad line 2: %v, want an error naming it", err)
	}
}
