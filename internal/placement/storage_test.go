package placement

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
	"tierbench/internal/engine"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestDeviceEnergy checks the model's energy against the profile's watts by hand:
// hdd-7200 is 7.5 W idle and 12 W active, so 100 s with 20 s busy is
// 7.5 x 100 + (12 - 7.5) x 20 = 840 J, of which 750 J idle.
func TestDeviceEnergy(t *testing.T) {
	reg := builtin(t)
	p, err := reg.Lookup("hdd-7200")
	if err != nil {
		t.Fatal(err)
	}
	pw := p.Power()
	if pw.IdleW != 7.5 || pw.ActiveW != 12 {
		t.Fatalf("hdd-7200 power %+v: the hand-computed figures below assume 7.5 W / 12 W", pw)
	}
	if got := pw.Energy(100*time.Second, 20*time.Second); !near(got, 840) {
		t.Errorf("Power.Energy = %v J, want 840", got)
	}
	// The emulator's figure is device.Energy of the model with its busy time; the
	// idle part comes from a fresh model of the spec.
	info, idleJ, m := profileInfo(reg, "hdd-7200", 100*time.Second)
	if !near(idleJ, 750) || info.Power != pw {
		t.Errorf("idle energy %v J (want 750), profile power %+v", idleJ, info.Power)
	}
	if m == nil || m.Name() != "hdd-7200" {
		t.Errorf("profileInfo's model %v: want the fresh hdd-7200 that Models hands the cost", m)
	}
	d := deviceResult(emulator.DeviceStats{Elapsed: 100 * time.Second, Busy: 20 * time.Second, EnergyJ: 840, Reads: 1500, Writes: 500}, idleJ, 475)
	if !near(d.ActiveEnergyJ, 90) || !near(d.CO2g, 0.11083333333333334) || !near(d.IOPS, 20) || !near(d.ReadIOPS, 15) || !near(d.MediaIOPS, 20) {
		t.Errorf("device result %+v: want 90 J active, 0.1108 g, 20 IOPS of which 15 reads, all reaching the media", d)
	}
	// Behind a page cache, only the disk's own requests reach the media; in a RAID 10
	// under a page cache, the leaves are the two disks.
	d = deviceResult(emulator.DeviceStats{Elapsed: 10 * time.Second, Reads: 1000, Writes: 100, FastHits: 700, FastHitMisses: 3, Model: device.Stats{Hits: 950, Misses: 50, ReadaheadPages: 12}, Members: []emulator.MemberStats{
		{Depth: 1, Name: "raid10(hdd-7200)", Stats: device.Stats{Reads: 50, Writes: 20}},
		{Depth: 2, Name: "hdd-7200", Stats: device.Stats{Reads: 30, Writes: 20}},
		{Depth: 2, Name: "hdd-7200", Stats: device.Stats{Reads: 20, Writes: 20}},
	}}, 0, 475)
	if d.MediaReads != 50 || d.MediaWrites != 40 || !near(d.MediaIOPS, 9) || !near(d.IOPS, 110) {
		t.Errorf("composite: media %d reads %d writes (%v IOPS), mount %v IOPS; want 50, 40, 9, 110", d.MediaReads, d.MediaWrites, d.MediaIOPS, d.IOPS)
	}
	if d.Hits != 950 || d.Misses != 50 || d.ReadaheadPages != 12 || d.FastHits != 700 || d.FastHitMisses != 3 {
		t.Errorf("page cache counters: %d hits, %d misses, %d pages read ahead, %d fast hits (%d the model would have delayed); want 950, 50, 12, 700, 3",
			d.Hits, d.Misses, d.ReadaheadPages, d.FastHits, d.FastHitMisses)
	}
	// A composite draws its members' watts: a page cache in front of the disk is the
	// disk's 7.5 W idle.
	info, idleJ, _ = profileInfo(reg, "pagecache(hdd-7200,size=64MiB)", 10*time.Second)
	if !near(idleJ, 75) || len(info.Members) != 1 || info.Members[0].Power.IdleW != 7.5 {
		t.Errorf("pagecache(hdd-7200): idle %v J (want 75), members %+v", idleJ, info.Members)
	}
	// A system-scope profile (dram-ssd: a whole appliance) counts its own watts.
	dram, _ := reg.Lookup("dram-ssd")
	_, idleJ, _ = profileInfo(reg, "dram-ssd", 10*time.Second)
	if !near(idleJ, 10*dram.Power().IdleW) {
		t.Errorf("dram-ssd idle %v J, want %v", idleJ, 10*dram.Power().IdleW)
	}
}

// TestFinishFromStats builds the storage section from final counters as the emulator
// returns them, without mounting anything.
func TestFinishFromStats(t *testing.T) {
	reg := builtin(t)
	dir := t.TempDir()
	plan, err := NewPlan([]string{"disk=hdd-7200", "ssd=sata-ssd", "tmp=" + dir}, Classes{Data: "disk", WAL: "ssd", Temp: "tmp"}, reg)
	if err != nil {
		t.Fatal(err)
	}
	ssd, _ := reg.Lookup("sata-ssd")
	sp := ssd.Power()
	var lat emulator.Histogram
	for _, us := range []int{100, 200, 300, 400, 10000} {
		lat.Record(time.Duration(us) * time.Microsecond)
	}
	pl := &Placed{
		plan: plan, reg: reg, opts: Options{FlushMethod: engine.Buffered},
		dirs:    map[string]string{"disk": "/m/disk", "ssd": "/m/ssd", "tmp": dir},
		applied: []engine.Setting{{Name: "backend_flush_after", Value: "0", Reason: "r"}},
		final: []emulator.DeviceStats{
			{Name: "disk", Elapsed: 100 * time.Second, Busy: 20 * time.Second, Utilisation: 0.2, EnergyJ: 840,
				Reads: 1000, Writes: 1000, Flushes: 10, ReadBytes: 8 << 20, MaxQueue: 4, MeanQueue: 0.5, Latency: lat, ReadLatency: lat},
			{Name: "ssd", Elapsed: 100 * time.Second, Busy: 10 * time.Second, EnergyJ: sp.Energy(100*time.Second, 10*time.Second), Writes: 5000},
		},
	}
	pl.once.Do(func() {}) // as if stopped
	st, err := pl.Finish(100)
	if err != nil {
		t.Fatal(err)
	}
	wantJ := 840 + sp.Energy(100*time.Second, 10*time.Second)
	if !near(st.EnergyJ, wantJ) || !near(st.CO2g, wantJ/3.6e6*100) || st.GridIntensitySource != "--grid-intensity" {
		t.Errorf("energy %v J, CO2 %v g, source %q; want %v J, %v g", st.EnergyJ, st.CO2g, st.GridIntensitySource, wantJ, wantJ/3.6e6*100)
	}
	disk := st.Tiers[0]
	if disk.Kind != "emulated" || disk.Spec != "hdd-7200" || disk.Dir != "/m/disk" || strings.Join(disk.Classes, ",") != "data" {
		t.Errorf("disk tier %+v", disk)
	}
	d := disk.Device
	if d.IOPS != 20 || d.Flushes != 10 || d.BusyS != 20 || d.MaxQueue != 4 || !near(d.IdleEnergyJ, 750) || !near(d.ActiveEnergyJ, 90) {
		t.Errorf("disk device %+v", d)
	}
	if d.Latency.Count != 5 || d.Latency.Max != 10000 || d.Latency.P50 < 280 || d.Latency.P50 > 320 || !near(d.Latency.Mean, 2200) {
		t.Errorf("latency %+v: want 5 requests, max 10000 us, p50 ~300 us, mean 2200 us", d.Latency)
	}
	if tmp := st.Tiers[2]; tmp.Kind != "directory" || tmp.Device != nil || tmp.Dir != dir {
		t.Errorf("tmp tier %+v", tmp)
	}
	// The cost and the SCI price the emulated tiers' models, and nothing for a directory.
	if m := pl.Models(); len(m) != 2 || m["disk"] == nil || m["disk"].Name() != "hdd-7200" || m["ssd"] == nil || m["tmp"] != nil {
		t.Errorf("models %v: want disk (hdd-7200) and ssd only", m)
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"placement":{"data":"disk","temp":"tmp","wal":"ssd"}`, `"device_energy_j"`, `"grid_intensity_g_per_kwh":100`,
		`"flush_method":"buffered"`, `"reason":"r"`, `"p99"`, `"idle_w":7.5`} {
		if !bytes.Contains(b, []byte(key)) {
			t.Errorf("JSON lacks %s:\n%s", key, b)
		}
	}
	var sum bytes.Buffer
	st.WriteSummary(&sum)
	for _, w := range []string{"disk", "hdd-7200", "data", "20.0", "840.0", "sata-ssd", "backend_flush_after=0"} {
		if !strings.Contains(sum.String(), w) {
			t.Errorf("summary lacks %q:\n%s", w, sum.String())
		}
	}
	// A device without final counters is an error, with what there is.
	pl.final = pl.final[:1]
	if _, err := pl.Finish(100); err == nil || !strings.Contains(err.Error(), "tier ssd") {
		t.Errorf("missing counters: %v", err)
	}
}
