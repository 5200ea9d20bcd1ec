//go:build linux

package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/emulator/emutest"
	"tierbench/internal/rundir"
	"tierbench/internal/workload/tpch"
)

func TestMain(m *testing.M) { emutest.Main(m) }

// TestRunOneSlot runs the demo's real path for one slot that wants dram-ssd, with
// hdd-15k as its fallback: on a host whose FUSE round trip is too slow for dram-ssd
// the row must say it stands in and why; either way the row holds a real run's
// figures and OUT/<device>/result.json its storage section. A second demo in the same
// OUT is refused while the first holds it, and an earlier demo's result of the device
// that ran is set aside, not overwritten; the other device's stays where it was.
func TestRunOneSlot(t *testing.T) {
	emutest.NeedFUSE(t)
	if testing.Short() {
		t.Skip("a TPC-H run of 10-40 s")
	}
	out := t.TempDir()
	cfg := Config{
		Slots:  []Slot{{Want: "dram-ssd", Fallbacks: []string{"hdd-15k"}}},
		OutDir: out, GridIntensity: 475,
		Emulator: emutest.Options(t),
	}
	earlier := []byte(`{"started": "an earlier demo"}`)
	for _, dev := range []string{"dram-ssd", "hdd-15k"} {
		if err := os.MkdirAll(filepath.Join(out, dev), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, dev, "result.json"), earlier, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	first, err := rundir.Acquire(out, "tierbench demo --out "+out)
	if err != nil {
		t.Fatal(err)
	}
	var busy *rundir.BusyError
	if _, err := Run(context.Background(), cfg); !errors.As(err, &busy) || busy.Holder.Command != "tierbench demo --out "+out {
		t.Errorf("a demo in a held OUT: %v, want a refusal naming the holder", err)
	}
	first.Release()
	rows, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	r := rows[0]
	t.Logf("%+v", r)
	switch r.Device {
	case "dram-ssd":
		if r.Substitutes != "" {
			t.Errorf("dram-ssd ran but the row says it substitutes %s", r.Substitutes)
		}
	case "hdd-15k":
		if r.Substitutes != "dram-ssd" || !strings.Contains(r.Why, "FUSE round trip") {
			t.Errorf("hdd-15k ran; the row should say it stands in for dram-ssd and why: %q, %q", r.Substitutes, r.Why)
		}
	default:
		t.Fatalf("device %s ran", r.Device)
	}
	if r.QphHUnrounded <= 0 || r.IOPS <= 0 || r.EnergyPerQueryJ <= 0 || r.Queries != 66 || r.LoadS <= 0 || r.Verdict == "" {
		t.Errorf("row %+v: want QphH, IOPS, energy per query, 66 queries, a load time and a verdict", r)
	}
	other := map[string]string{"dram-ssd": "hdd-15k", "hdd-15k": "dram-ssd"}[r.Device]
	if b, _ := os.ReadFile(filepath.Join(out, r.Device, "earlier", "1", "result.json")); !bytes.Equal(b, earlier) {
		t.Errorf("%s's earlier result set aside: %q", r.Device, b)
	}
	if b, _ := os.ReadFile(filepath.Join(out, other, "result.json")); !bytes.Equal(b, earlier) {
		t.Errorf("%s, which did not run, holds %q", other, b)
	}
	if _, err := os.Stat(filepath.Join(out, other, "earlier")); !os.IsNotExist(err) {
		t.Errorf("%s, which did not run, has earlier results: %v", other, err)
	}
	b, err := os.ReadFile(filepath.Join(out, r.Device, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res tpch.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Storage == nil || len(res.Storage.Tiers) != 1 || res.Storage.Tiers[0].Device == nil || res.Storage.Tiers[0].Device.Reads == 0 {
		t.Errorf("result.json storage %+v: want one emulated tier with reads", res.Storage)
	}
	// The device's run was sampled: the emulated tier's counters are series, and each
	// of TPC-H's tests is a window with a verdict.
	if m := res.Monitoring; m == nil || m.Window("throughput") == nil || m.Window("throughput").Counters["emu."+r.Device+".reads"].Delta <= 0 {
		t.Errorf("monitoring %+v: want the throughput test's window with the device's reads", res.Monitoring)
	}
	if v := res.Verdict; v == nil || len(v.Levels) != 3 || v.Window != "throughput" || v.Headline != r.Verdict {
		t.Errorf("verdict %+v: want load, power and throughput judged, the throughput test's the row's", res.Verdict)
	}
	if mi, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(mi), out) {
		t.Errorf("a mount under %s is left", out)
	}
	if _, err := os.Stat(filepath.Join(out, r.Device, "tiers")); !os.IsNotExist(err) {
		t.Errorf("the tier's files are left (stat: %v)", err)
	}
}
