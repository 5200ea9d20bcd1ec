package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"tierbench/internal/result"
	"tierbench/internal/verdict"
	"tierbench/internal/workload/tpch"
)

func TestSortAndRanking(t *testing.T) {
	rows := []Row{
		{Device: "sata-ssd", Read8KUs: 76.6, QphHUnrounded: 535},
		{Device: "hdd-7200", Read8KUs: 12640, QphHUnrounded: 91},
		{Device: "dram-ssd", Read8KUs: 16.3, QphHUnrounded: 667},
	}
	SortBySpeed(rows)
	if got := rows[0].Device + "," + rows[1].Device + "," + rows[2].Device; got != "hdd-7200,sata-ssd,dram-ssd" {
		t.Fatalf("sorted %s, want slowest first", got)
	}
	if err := CheckRanking(rows); err != nil {
		t.Errorf("ranking in order: %v", err)
	}
	rows[2].QphHUnrounded = 500 // the fastest device below the middle one
	err := CheckRanking(rows)
	if err == nil || !strings.Contains(err.Error(), "dram-ssd") || !strings.Contains(err.Error(), "sata-ssd") {
		t.Errorf("out of order: %v, want an error naming dram-ssd and sata-ssd", err)
	}
	// devices within twice each other's speed may tie, within 10%
	close := []Row{{Device: "nvme", Read8KUs: 22.2, QphHUnrounded: 700}, {Device: "dram-ssd", Read8KUs: 16.3, QphHUnrounded: 640}}
	if err := CheckRanking(close); err != nil {
		t.Errorf("dram-ssd 8.6%% behind nvme: %v, want a tie", err)
	}
	close[1].QphHUnrounded = 620
	if err := CheckRanking(close); err == nil {
		t.Error("dram-ssd 11.4% behind nvme: no error")
	}
	var out bytes.Buffer
	WriteTable(&out, Config{SF: 0.01, CacheBytes: 2 << 20, PageCache: 10 << 20, Seed: 1}, rows)
	if !strings.Contains(out.String(), "WARNING: the ranking does not follow") {
		t.Errorf("the table does not warn:\n%s", out.String())
	}
}

// TestRowOf checks the row's figures against a result computed by hand: 22 power
// queries and 2 streams of 22 are 66 queries; 660 J is 10 J a query.
func TestRowOf(t *testing.T) {
	q := map[string]float64{}
	for i := 1; i <= 22; i++ {
		q[fmt.Sprintf("Q%d", i)] = 0.1
	}
	res := &tpch.Result{
		Metrics:    &tpch.Metrics{QphHAtSize: 80.5, QphHAtSizeUnrounded: 90.25},
		Load:       &tpch.LoadResult{Total: 5.5},
		Power:      &tpch.PowerResult{Queries: q},
		Throughput: &tpch.ThroughputResult{Streams: []map[string]float64{q, q}},
		Sections: result.Sections{Storage: &result.Storage{Tiers: []result.TierResult{{Device: &result.DeviceResult{
			IOPS: 20000, MediaIOPS: 5000, Utilisation: 0.9, EnergyJ: 660,
		}}}}, Verdict: &verdict.Section{Window: "throughput", Primary: verdict.Device, Headline: "device-bound: tier hdd-7200 busy 95%"}},
	}
	r := rowOf("hdd-7200", "pagecache(hdd-7200,size=10MiB,page=64KiB)", res, 0)
	if r.Queries != 66 || r.EnergyPerQueryJ != 10 || r.QphHUnrounded != 90.25 || r.LoadS != 5.5 || r.IOPS != 5000 || r.Verdict != "device-bound: tier hdd-7200 busy 95%" {
		t.Errorf("row %+v: want 66 queries, 10 J each, QphH 90.25, load 5.5 s, 5000 IOPS and the verdict's headline", r)
	}
	var table bytes.Buffer
	WriteTable(&table, Config{}, []Row{*r})
	if !strings.Contains(table.String(), "\n  hdd-7200: device-bound: tier hdd-7200 busy 95%\n") {
		t.Errorf("the table lacks the device's verdict:\n%s", table.String())
	}
	var out bytes.Buffer
	if err := WriteJSON(&out, []Row{*r}); err != nil {
		t.Fatal(err)
	}
	var back []map[string]any
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back[0]["device"] != "hdd-7200" || back[0]["qphh_unrounded"] != 90.25 {
		t.Errorf("JSON row %v: want device and qphh_unrounded", back[0])
	}
}

func TestSpec(t *testing.T) {
	cfg := Config{PageCache: 10 << 20}
	if got := cfg.Spec("hdd-7200"); got != "pagecache(hdd-7200,size=10MiB,page=64KiB)" {
		t.Errorf("spec %s", got)
	}
	cfg.PageCache = -1
	if got := cfg.Spec("hdd-7200"); got != "hdd-7200" {
		t.Errorf("spec without a page cache %s", got)
	}
}
