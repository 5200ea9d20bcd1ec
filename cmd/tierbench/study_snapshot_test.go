package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/metrics"
	"tierbench/internal/report/reporttest"
	"tierbench/internal/report/stats"
	"tierbench/internal/result"
	"tierbench/internal/rundir"
	"tierbench/internal/study"
)

// snapshotStudy reads a SQLite database on an emulated SSD, without and with a page
// cache model larger than the database in front of it, each run on a copy of one
// load; it claims the cache's gain.
const snapshotStudy = `name: snapshot-claims
workload: oltp
params: {mix: point-select, scale: 0.05, ramp: 0s, duration: 1s}
factors:
  cache:
    - {label: "off", data: sata-ssd}
    - {label: "on", data: "pagecache(sata-ssd,size=64MiB)"}
repetitions: 2
snapshot: true
expect:
  - id: cache-gain
    claim: tps cache=on / cache=off
    paper: 5
    source: "this test: a page cache in front of an SSD"
    held: within 90%
`

// TestStudySnapshotAndClaims runs a study whose runs reuse one load on emulated
// devices: the population is loaded once, each run's device counters leave the copy
// out (a read-only mix writes nothing) and its page cache model starts cold (it
// misses, though the database fits in it); the claim is judged with the ratio of the
// runs' own tps and its interval, in the terminal, summary.json and the page.
func TestStudySnapshotAndClaims(t *testing.T) {
	asTierbenchChild(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "snap.yaml")
	if err := os.WriteFile(file, []byte(snapshotStudy), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	text, err := runStudyCLI(context.Background(), "study", "run", file, "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	tps := map[string][]float64{}
	made := 0
	for _, cell := range []string{"cache=off", "cache=on"} {
		for rep := 1; rep <= 2; rep++ {
			rd := study.RunDir(out, cell, rep)
			rec, err := metrics.ReadJSONFile[study.RunRecord](filepath.Join(rd, study.RunFile))
			if err != nil || rec == nil || rec.Status != result.StatusOK || rec.Load == nil {
				t.Fatalf("%s rep %d: %+v, %v", cell, rep, rec, err)
			}
			if rec.Load.Made {
				made++
			}
			res, err := metrics.ReadJSONFile[struct {
				TPS     float64        `json:"tps"`
				Storage result.Storage `json:"storage"`
			}](filepath.Join(rd, "result.json"))
			if err != nil || res == nil || len(res.Storage.Tiers) != 1 || res.Storage.Tiers[0].Device == nil {
				t.Fatalf("%s rep %d: result %+v, %v", cell, rep, res, err)
			}
			tps[cell] = append(tps[cell], res.TPS)
			d := res.Storage.Tiers[0].Device
			// The copy wrote rec.Load.Bytes onto the tier before the run's device
			// started counting; the run itself writes nothing.
			if rec.Load.Bytes < 1<<20 || d.WriteBytes != 0 || d.Reads == 0 {
				t.Errorf("%s rep %d: %d bytes copied, the device counted %d written and %d reads: the copy must not count", cell, rep, rec.Load.Bytes, d.WriteBytes, d.Reads)
			}
			// A page cache model filled by the copy would hit every page of a
			// database smaller than itself; a cold one misses each page once.
			if cell == "cache=on" && (d.Misses == 0 || d.Misses*4096 > rec.Load.Bytes+(1<<20)) {
				t.Errorf("%s rep %d: %d page cache misses for a %d-byte database: want a cold start, each page missed once at most", cell, rep, d.Misses, rec.Load.Bytes)
			}
		}
	}
	if made != 1 {
		t.Errorf("%d runs made the snapshot, want 1", made)
	}

	want := stats.RatioOfMeans(tps["cache=off"], tps["cache=on"])
	if !strings.Contains(text, "expect cache-gain: ") || !strings.Contains(text, "tps cache=on / cache=off: ") {
		t.Errorf("the terminal has no line for the claim:\n%s", text)
	}
	sum, err := metrics.ReadJSONFile[struct {
		Claims []study.Judgement `json:"claims"`
	}](filepath.Join(out, study.SummaryFile))
	if err != nil || sum == nil || len(sum.Claims) != 1 {
		t.Fatalf("summary.json claims: %+v, %v", sum, err)
	}
	j := sum.Claims[0]
	if j.Verdict == study.VerdictCannot || j.Measured == nil || *j.Measured != want {
		t.Errorf("summary.json: %s, measured %+v; want a verdict on %+v, the ratio of the runs' tps", j.Verdict, j.Measured, want)
	}

	reporttest.ChromiumPath(t)
	page := reporttest.Load(t, filepath.Join(out, rundir.ReportFile))
	page.CheckClean(t)
	tbl := page.Table(t, "expected-findings")
	if len(tbl.Rows) != 1 || tbl.Rows[0][0].Text != "cache-gain" || tbl.Rows[0][5].Text != j.Words() {
		t.Errorf("the page's expected findings: %+v, want cache-gain %s", tbl.Rows, j.Words())
	}
}
