package resultfile_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/result"
	"tierbench/internal/resultfile"
)

// member is the value at path (members joined by dots) of the JSON object in file,
// read on its own, as the test's check of what the decoder found; nil when the file
// has no such member.
func member(t *testing.T, file, path string) any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	for _, name := range strings.Split(path, ".") {
		obj, ok := v.(map[string]any)
		if v == nil {
			return nil
		} else if !ok {
			t.Fatalf("%s: %s is not inside an object", file, path)
		}
		v = obj[name]
	}
	return v
}

// TestReadEachWorkload: each workload's real result file, as this tierbench writes
// it and as the one before the workloads had one name wrote it, is read into its
// workload's result type by its benchmark member (TPC-H's old file by its sf): the
// workload, its title, the headline number and status of its own type, and the
// members every report reads.
func TestReadEachWorkload(t *testing.T) {
	for _, tc := range []struct {
		file, workload, title string
		// metric is a headline metric and path where the file holds it.
		metric, path string
		engine       string
		levels       int
	}{
		{"tpch.json", "tpch", "TPC-H", "qphh_at_size", "metrics.qphh_at_size", "sqlite", 0},
		{"tpch-untagged.json", "tpch", "TPC-H", "power_at_size", "metrics.power_at_size", "sqlite", 0},
		{"tpcc.json", "tpcc", "TPC-C", "nopm", "nopm", "sqlite", 1},
		{"oltp.json", "oltp", "OLTP mix", "tps", "tps", "sqlite", 1},
		{"oltp-mix.json", "oltp", "OLTP mix", "qps", "qps", "sqlite", 1},
		{"postmark.json", "postmark", "Postmark-compatible file workload", "transactions_per_s", "rates.transactions_per_s", "", 0},
		{"files.json", "postmark", "Postmark-compatible file workload", "elapsed_s", "elapsed_s", "", 0},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", tc.file)
			d, err := resultfile.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			if d.Workload == nil || d.Workload.Name != tc.workload || d.Title() != tc.title || d.Result == nil {
				t.Fatalf("workload %+v, title %q: want %s, %q", d.Workload, d.Title(), tc.workload, tc.title)
			}
			want, ok := member(t, path, tc.path).(float64)
			if !ok || want <= 0 {
				t.Fatalf("%s holds no %s", path, tc.path)
			}
			var got *result.Metric
			for _, m := range d.Headline() {
				if m.Name == tc.metric {
					got = &m
				}
			}
			if got == nil || got.Value != want {
				t.Errorf("headline %s = %+v, want %v", tc.metric, got, want)
			}
			if s, why := d.RunStatus(); s != result.StatusOK || why != "" {
				t.Errorf("status %s %q, want ok", s, why)
			}
			if started, _ := member(t, path, "started").(string); started == "" || d.Started != started {
				t.Errorf("started %q, the file's %q", d.Started, started)
			}
			if engine := ""; d.Engine != nil {
				engine = d.Engine.Name
				if engine != tc.engine {
					t.Errorf("engine %q, want %q", engine, tc.engine)
				}
			} else if tc.engine != "" {
				t.Errorf("no engine, want %s", tc.engine)
			}
			if len(d.Levels) != tc.levels {
				t.Errorf("%d levels, want %d", len(d.Levels), tc.levels)
			}
			if d.Energy == nil || d.Energy.Window("run") == nil {
				t.Error("the energy section was not read")
			}
			// Every headline number is one the registry describes, with its unit and
			// direction.
			for _, m := range d.Headline() {
				mi, ok := d.Workload.Metric(m.Name)
				if !ok || mi.Unit != m.Unit || mi.Better != m.Better || mi.What == "" {
					t.Errorf("headline %+v: the registry describes it as %+v", m, mi)
				}
			}
		})
	}
}

// TestReadLevelsAndSections: a monitored run of a mix is read with its levels, its
// headline level's I/O and CPU, and the monitoring and verdict sections, as the file
// holds them.
func TestReadLevelsAndSections(t *testing.T) {
	path := filepath.Join("testdata", "oltp.json")
	d, err := resultfile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if users := member(t, path, "users").(float64); d.Users != int(users) || d.Levels[0].Users != int(users) {
		t.Errorf("users %d, level of %d users; the file says %v", d.Users, d.Levels[0].Users, users)
	}
	levels := member(t, path, "levels").([]any)
	if p95 := levels[0].(map[string]any)["latency"].(map[string]any)["p95_ms"].(float64); d.Levels[0].Latency.P95 != p95 {
		t.Errorf("level p95 %v, the file's %v", d.Levels[0].Latency.P95, p95)
	}
	if cores := member(t, path, "client_cpu.cores").(float64); d.ClientCPU == nil || d.ClientCPU.Cores != cores {
		t.Errorf("client CPU %+v, the file's %v cores", d.ClientCPU, cores)
	}
	if d.IntervalsFile != member(t, path, "intervals_file") {
		t.Errorf("intervals file %q", d.IntervalsFile)
	}
	if d.Monitoring == nil || d.Monitoring.File != member(t, path, "monitoring.file") || d.Monitoring.Run == nil {
		t.Errorf("monitoring section %+v", d.Monitoring)
	}
	if d.Verdict == nil || d.Verdict.Window != member(t, path, "verdict.window") || d.Verdict.Headline != member(t, path, "verdict.headline") {
		t.Errorf("verdict section %+v", d.Verdict)
	}
}

// TestReadStudyFixture: the TPC-C results of the study report's fixture, trimmed by
// hand to what that report reads, are TPC-C's, with their NOPM, status and device
// energy (a failed run has none).
func TestReadStudyFixture(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "report", "testdata", "study", "*", "rep-*", "result.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixture results: %v", err)
	}
	for _, path := range paths {
		d, err := resultfile.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if d.Workload == nil || d.Workload.Name != "tpcc" {
			t.Errorf("%s: workload %+v, want tpcc", path, d.Workload)
			continue
		}
		nopm := -1.0
		for _, m := range d.Headline() {
			if m.Name == "nopm" {
				nopm = m.Value
			}
		}
		want, _ := member(t, path, "nopm").(float64)
		status, why := d.RunStatus()
		if nopm != want || string(status) != member(t, path, "status") || why != d.Error {
			t.Errorf("%s: nopm %v status %s %q; the file says %v, %v", path, nopm, status, why, want, member(t, path, "status"))
		}
		if j := member(t, path, "storage.device_energy_j"); (j == nil) != (d.Storage == nil) || d.Storage != nil && d.Storage.EnergyJ != j {
			t.Errorf("%s: storage %+v, the file's device energy %v", path, d.Storage, j)
		}
	}
}

// TestReadWhatItDoesNotKnow: a workload this tierbench does not know is read for what
// every result has, and named by its benchmark member; a file that names none and has
// no sf is an unknown workload's.
func TestReadWhatItDoesNotKnow(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		json, title string
		status      result.Status
		why         string
	}{
		{`{"benchmark": "future", "status": "failed", "error": "it broke", "users": 3}`, "future", result.StatusFailed, "it broke"},
		{`{"status": "ok", "tool": "tierbench"}`, "an unknown workload", result.StatusOK, ""},
	} {
		path := filepath.Join(dir, "result.json")
		if err := os.WriteFile(path, []byte(tc.json), 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := resultfile.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if s, why := d.RunStatus(); d.Workload != nil || d.Result != nil || d.Title() != tc.title || s != tc.status || why != tc.why || d.Headline() != nil {
			t.Errorf("%s: workload %v, title %q, status %s %q", tc.json, d.Workload, d.Title(), s, why)
		}
	}
}

// TestReadBadFiles: a missing file wraps fs.ErrNotExist; a file that is not a result,
// or not a result of the workload it names, is an error naming the file and why.
func TestReadBadFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := resultfile.Read(filepath.Join(dir, "result.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	for _, tc := range []struct{ json, want string }{
		{`[1, 2]`, "not a result of tierbench"},
		{`{"status": 7}`, "not a result of tierbench"},
		{`{"benchmark": "tpch", "metrics": "fast"}`, "not a TPC-H result"},
		{`{"sf": 0.01, "power": []}`, "not a TPC-H result"},
		{`{"benchmark": "files", "rates": {"transactions_per_s": "many"}}`, "not a Postmark-compatible file workload result"},
	} {
		path := filepath.Join(dir, "result.json")
		if err := os.WriteFile(path, []byte(tc.json), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := resultfile.Read(path)
		if err == nil || !strings.HasPrefix(err.Error(), path+": "+tc.want+": ") {
			t.Errorf("%s: error %v, want %q about %s", tc.json, err, tc.want, path)
		}
	}
}
