package main

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tierbench/internal/metrics"
	"tierbench/internal/report"
	"tierbench/internal/rundir"
	"tierbench/internal/runreport"
	"tierbench/internal/workload/postmark"
)

func TestFilesRun(t *testing.T) {
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	// The preset's parameters, with the flags given on top of them.
	stdout, err := runCLI(t, "files", "run", "--dir", dir, "--preset", "low", "--files", "30", "--transactions", "120",
		"--size-max", "8KiB", "--buffered=false", "--seed", "5", "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	res, err := metrics.ReadJSONFile[postmark.Result](filepath.Join(out, "result.json"))
	if err != nil || res == nil {
		t.Fatalf("result.json: %v", err)
	}
	low, _ := postmark.LookupPreset("low")
	want := low
	want.Files, want.Transactions, want.SizeMax, want.Buffered, want.Seed = 30, 120, 8192, false, 5
	if res.Config != want || res.Preset != "low" || res.Status != "ok" {
		t.Fatalf("config %+v preset %q status %s, want %+v", res.Config, res.Preset, res.Status, want)
	}
	if res.Counts != postmark.Simulate(want).Counts {
		t.Fatalf("counts %+v, want %+v", res.Counts, postmark.Simulate(want).Counts)
	}
	for _, s := range []string{"preset low: 30 files of 512 B to 8 KiB in 10 subdirectories, 120 transactions", "unbuffered I/O, seed 5", "transactions: 120 (",
		"\nmonitoring, transactions: ", "\nverdict, transactions: ", "  by window: create ", "result: " + filepath.Join(out, "result.json")} {
		if !strings.Contains(stdout, s) {
			t.Errorf("summary lacks %q:\n%s", s, stdout)
		}
	}
	// Each phase is a window of the monitor, judged; the headline is the transactions'.
	var labels []string
	for _, w := range res.Monitoring.Windows {
		labels = append(labels, w.Label)
	}
	if strings.Join(labels, ",") != "create,transactions,delete" || res.Verdict == nil || len(res.Verdict.Levels) != 3 || res.Verdict.Window != "transactions" {
		t.Errorf("monitoring windows %v, verdict %+v: want the three phases, the transactions' the headline", labels, res.Verdict)
	}
}

func TestFilesBadInput(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	busy := busyAddr(t)
	run := func(args ...string) []string {
		return append(append([]string{"files", "run"}, args...), "--out", out)
	}
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no dir", run(), "--data or --dir is required: the device (a profile such as sata-ssd) or directory to run in"},
		{"dir and data", run("--dir", dir, "--data", dir), "--dir " + dir + " and --data " + dir + " both say where to run: give one"},
		{"missing dir", run("--dir", filepath.Join(dir, "nope")), "--dir " + filepath.Join(dir, "nope") + ": not an existing directory"},
		{"zero files", run("--dir", dir, "--files", "0"), "--files 0: give the number of files in the pool, 1 to"},
		{"size not a size", run("--dir", dir, "--size-max", "big"), `--size-max "big" is not a size`},
		{"sizes crossed", run("--dir", dir, "--size-min", "2KiB", "--size-max", "1KiB"), "--size-max 1024: give the largest file size in bytes, at least --size-min (2048)"},
		{"size too large", run("--dir", dir, "--size-max", "2GiB"), "--size-max 2147483648:"},
		{"bias out of range", run("--dir", dir, "--read-bias", "11"), "--read-bias 11: give the chance of a read rather than an append in tenths, 0 to 10, or -1 for neither"},
		{"zero seed", run("--dir", dir, "--seed", "0"), "--seed 0: give a seed from 1 to 2147483647, as Postmark takes"},
		{"unknown preset", run("--dir", dir, "--preset", "extreme"), `--preset "extreme": give one of non-load, low, medium, high`},
		{"idle with files", run("--dir", dir, "--preset", "non-load", "--files", "10"), "--idle 1m0s: an idle run (preset non-load) makes no files"},
		{"out of files", run("--dir", dir, "--files", "40", "--transactions", "1000", "--create-bias", "2"), "--transactions 1000: the pool of 40 files is empty after transaction"},
		{"sample 0", run("--dir", dir, "--sample", "0"), "--sample 0: give how often to sample, above 0"},
		{"metrics addr in use", run("--dir", dir, "--metrics-addr", busy), "--metrics-addr " + busy + ": the address is already in use: stop what listens there or choose another port"},
		{"larger than the disk", run("--dir", dir, "--files", "40000000", "--size-min", "1GiB", "--size-max", "1GiB"), "postmark run --files 40000000 --size-max 1073741824 --transactions 500 needs about"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runCLI(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

// TestFilesRefusedLeavesOutAsItWas: a run refused before it starts, for its size or
// for a pool that runs dry, changes nothing in OUT: the earlier run's files stay where
// they were, byte for byte, and it writes none of its own (it used to set them aside
// into OUT/earlier and leave its metrics files), and says nothing but why.
func TestFilesRefusedLeavesOutAsItWas(t *testing.T) {
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	if _, err := runCLI(t, "files", "run", "--dir", dir, "--files", "20", "--transactions", "60", "--out", out); err != nil {
		t.Fatal(err)
	}
	before := dirContents(t, out)
	if _, ok := before["result.json"]; !ok || len(before) < 3 {
		t.Fatalf("the first run left %v", before)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--files", "40000000", "--size-max", "1GiB"}, "needs about 19 PiB of disk"},
		{[]string{"--files", "40", "--transactions", "1000", "--create-bias", "2"}, "the pool of 40 files is empty after transaction"},
	} {
		_, stderr, err := runCLIStderr(t, append([]string{"files", "run", "--dir", dir, "--out", out}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%v: error %v, want one saying %q", tc.args, err, tc.want)
		}
		if stderr != "" {
			t.Errorf("%v: printed %q", tc.args, stderr)
		}
		if after := dirContents(t, out); !maps.Equal(after, before) {
			t.Errorf("%v changed OUT: %v, was %v", tc.args, slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
		}
	}
	if left, err := os.ReadDir(dir); err != nil || len(left) != 0 {
		t.Errorf("left in --dir: %v (%v)", left, err)
	}
}

// dirContents is every file under dir, by path relative to it, with its contents.
func dirContents(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestFilesRunOnTier: files run takes the placement flags: on an emulated device its
// result has the storage section, with the device's counters, and an energy section;
// nothing is left mounted.
func TestFilesRunOnTier(t *testing.T) {
	needFUSE(t)
	out := t.TempDir()
	stdout, err := runCLI(t, "files", "run", "--data", slowSSD, "--files", "20", "--transactions", "60", "--subdirs", "2", "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	res, err := metrics.ReadJSONFile[postmark.Result](filepath.Join(out, "result.json"))
	if err != nil || res == nil {
		t.Fatalf("result.json: %v", err)
	}
	st := res.Storage
	if st == nil || len(st.Tiers) != 1 || st.Tiers[0].Device == nil || st.Placement["data"] != "data" {
		t.Fatalf("storage %+v", st)
	}
	if d := st.Tiers[0].Device; d.Writes == 0 || d.EnergyJ <= 0 || !strings.HasSuffix(res.Dir, filepath.Join("tiers", "data", "mnt")) {
		t.Errorf("device %+v in %s: want writes and energy on the tier's mount", d, res.Dir)
	}
	if res.Energy == nil || res.Energy.Window("run") == nil || res.Status != "ok" || res.Created != 20+res.CreatedMixed {
		t.Errorf("energy %v, status %s, created %d", res.Energy != nil, res.Status, res.Created)
	}
	if !strings.Contains(stdout, "Storage") || !strings.Contains(stdout, slowSSD) {
		t.Errorf("the summary has no storage section:\n%s", stdout)
	}
	noMountsUnder(t, out)
}

// TestPostmarkAndItsOldName: the file workload's command is postmark, and files, its
// name before, runs the same command: both write a result that names the workload
// postmark, which `tierbench report` reports by its title with its headline numbers.
// The command list shows the workload once.
func TestPostmarkAndItsOldName(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"postmark", "files"} {
		out := filepath.Join(t.TempDir(), "out")
		if stdout, err := runCLI(t, name, "run", "--dir", dir, "--preset", "low", "--files", "20", "--transactions", "60", "--seed", "5",
			"--sample", "off", "--out", out); err != nil {
			t.Fatalf("%s run: %v\n%s", name, err, stdout)
		}
		res, err := metrics.ReadJSONFile[postmark.Result](filepath.Join(out, "result.json"))
		if err != nil || res == nil || res.Benchmark != "postmark" || res.Status != "ok" {
			t.Fatalf("%s run: result.json %+v, %v: want benchmark postmark, ok", name, res, err)
		}
		if stdout, err := runCLI(t, "report", out); err != nil || stdout != "report: "+filepath.Join(out, rundir.ReportFile)+"\n" {
			t.Fatalf("report of %s run: %v, printed %q", name, err, stdout)
		}
		doc := mustBuild(t, out)
		if doc.Title != "tierbench run: Postmark-compatible file workload" {
			t.Errorf("report of %s run: title %q", name, doc.Title)
		}
		if got := headlineValue(t, doc, "transactions_per_s"); got != res.Rates.TransactionsPerS {
			t.Errorf("report of %s run: transactions_per_s %v, result.json's %v", name, got, res.Rates.TransactionsPerS)
		}
	}
	help, err := runCLI(t, "--help")
	if err != nil || !strings.Contains(help, "\n  postmark ") || strings.Contains(help, "\n  files ") {
		t.Errorf("the command list shows postmark and not files: %v\n%s", err, help)
	}
}

// mustBuild is the run report of dir.
func mustBuild(t *testing.T, dir string) *report.Document {
	t.Helper()
	rep, err := runreport.Build(dir, runreport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Doc
}

// headlineValue is the value of metric (its key in result.json) in a run report's
// headline table.
func headlineValue(t *testing.T, doc *report.Document, metric string) float64 {
	t.Helper()
	for _, tb := range doc.Tables() {
		for _, row := range tb.Rows {
			if tb.Name == "headline" && row[3].Text == metric && row[1].Value != nil {
				return *row[1].Value
			}
		}
	}
	t.Fatalf("the report has no headline %s", metric)
	return 0
}
