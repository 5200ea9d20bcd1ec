package device

import (
	"math"
	"strings"
	"testing"
	"time"
)

// fixed is a device that serves every request in d, one at a time or all at once
// (no queue): what is left once the caps are the only limit.
type fixed struct {
	counters
	d time.Duration
}

func (f *fixed) Name() string                                     { return "fixed" }
func (f *fixed) Submit(at time.Duration, r Request) time.Duration { return at + f.d }

// An IOPS cap of 1,000 with a 1 ms bucket: request k (all submitted at 0) starts at
// k ms less the bucket's 1 ms, and crosses the 200 us network (100 us each way) around
// the inner device's 10 us.
func TestLimitIOPSBucket(t *testing.T) {
	l := NewLimit("l", Power{}, &fixed{d: 10 * us}, LimitConfig{IOPS: 1000, Bucket: ms, Network: 200 * us})
	for k := 0; k <= 1000; k++ {
		got := l.Submit(0, rd(int64(k)*1<<20, 4096))
		start := max(time.Duration(k)*ms-ms, 0)
		if want := start + 210*us; got != want {
			t.Fatalf("request %d: completion %v, want %v", k, got, want)
		}
	}
}

// A throughput cap of 1 MB/s counts bytes: 1,000-byte requests start a millisecond
// apart, 10,000-byte ones ten.
func TestLimitThroughputBucket(t *testing.T) {
	l := NewLimit("l", Power{}, &fixed{}, LimitConfig{BytesPS: 1e6, Bucket: ms})
	runSteps(t, l, []step{
		{0, rd(0, 1000), 0},                 // bucket full: starts now, owes 1 ms
		{0, rd(1<<20, 1000), 0},             // within the 1 ms bucket
		{0, rd(2<<20, 10000), 1 * ms},       // tat 2 ms, less the bucket
		{0, rd(3<<20, 1000), 11 * ms},       // tat 12 ms
		{50 * ms, rd(4<<20, 1000), 50 * ms}, // refilled
	})
}

// With a 256 KiB operation and merging, a 1 MiB sequential run is four operations
// whether it comes as one request or as 32 KiB pieces, and a random 1 MiB read is four
// too; a 4 KiB random read is one. 16 KiB pieces (under merge_min 32 KiB) count one each.
func TestLimitCharge(t *testing.T) {
	l := NewLimit("l", Power{}, &fixed{}, LimitConfig{IOPS: 1000, IOSize: 256 << 10, Merge: true, MergeMin: 32 << 10})
	if ops, _ := l.charge(rd(0, 1<<20)); ops != 4 {
		t.Errorf("1 MiB: %d operations, want 4", ops)
	}
	total := int64(0)
	for i := int64(0); i < 32; i++ {
		ops, _ := l.charge(rd(8<<20+i*(32<<10), 32<<10))
		total += ops
	}
	if total != 4 {
		t.Errorf("32 sequential 32 KiB reads: %d operations, want 4", total)
	}
	if ops, _ := l.charge(rd(100<<20, 4096)); ops != 1 {
		t.Errorf("4 KiB: %d operations, want 1", ops)
	}
	total = 0
	for i := int64(0); i < 4; i++ {
		ops, _ := l.charge(rd(200<<20+i*(16<<10), 16<<10))
		total += ops
	}
	if total != 4 {
		t.Errorf("4 sequential 16 KiB reads: %d operations, want 4", total)
	}
	// st1: every I/O charged as a whole 1 MiB against throughput
	h := NewLimit("h", Power{}, &fixed{}, LimitConfig{BytesPS: 1e6, IOSize: 1 << 20, WholeIO: true})
	if _, bytes := h.charge(rd(0, 4096)); bytes != 1<<20 {
		t.Errorf("st1 4 KiB read charged %d bytes, want %d", bytes, 1<<20)
	}
}

// A burst of 10 MB/s over a 1 MB/s baseline with a 1 MiB credit bucket: the credits
// last while the first MiB goes at the burst rate, then the baseline holds.
func TestLimitBurstCredits(t *testing.T) {
	l := NewLimit("l", Power{}, &fixed{}, LimitConfig{BytesPS: 1e6, BurstBytesPS: 10e6, CreditBytes: 1 << 20})
	var last time.Duration
	const n = 1 << 10 // 1 KiB requests
	for i := int64(0); i < 2048; i++ {
		last = l.Submit(0, rd(i*n, n))
	}
	// 1,024 KiB at the burst (about 1,048,576 / 10e6 s, plus what the baseline earned
	// meanwhile) then the rest at 1 MB/s: about 0.105 s + 1,048,576 bytes / 1e6 = 1.15 s.
	lo, hi := 1000*ms, 1160*ms
	if last < lo || last > hi {
		t.Errorf("2 MiB in 1 KiB requests done at %v, want %v-%v (burst then baseline)", last, lo, hi)
	}
	nb := NewLimit("l", Power{}, &fixed{}, LimitConfig{BytesPS: 1e6})
	for i := int64(0); i < 2048; i++ {
		last = nb.Submit(0, rd(i*n, n))
	}
	if want := time.Duration(2047 * n * int64(time.Second) / 1e6); last != want {
		t.Errorf("without burst: done at %v, want %v", last, want)
	}
}

// RequestRate: what the caps pass, worked out by hand.
func TestCapsRequestRate(t *testing.T) {
	gp3 := Caps{IOPS: 3000, MBps: 125 * 1.048576, IOSizeKiB: 256, Merge: true, MergeMinKiB: 32}
	tests := []struct {
		name string
		c    Caps
		size int64
		seq  bool
		want float64
	}{
		{"gp3 4K random", gp3, 4096, false, 3000},
		{"gp3 1M random: 4 ops, then MB/s 131.072e6/1048576", gp3, 1 << 20, false, 125},
		{"gp3 64K sequential: 0.25 op each, MB/s binds", gp3, 64 << 10, true, 131.072e6 / 65536},
		{"st1 4K random charged 1 MiB", Caps{MBps: 40 * 1.048576, IOSizeKiB: 1024, WholeIO: true, IOPS: 500}, 4096, false, 40},
		{"burst ignored without credits", Caps{IOPS: 100, BurstIOPS: 1000}, 4096, false, 100},
	}
	for _, tt := range tests {
		if got := tt.c.RequestRate(tt.size, tt.seq, true); math.Abs(got-tt.want) > 1e-9*tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := (Caps{}).RequestRate(4096, false, false); !math.IsInf(got, 1) {
		t.Errorf("no caps: %v, want +Inf", got)
	}
}

// The provider's rules set the caps from size, IOPS and throughput, and refuse what the
// provider does not allow, quoting its rule.
func TestCloudRules(t *testing.T) {
	r := testRegistry(t)
	good := []struct {
		spec       string
		iops, mbps float64
	}{
		{"aws-gp3", 3000, 125 * 1.048576},
		{"aws-gp3(size=500GiB,iops=6000,throughput=250)", 6000, 250 * 1.048576},
		{"aws-io2(size=100GiB,iops=10000)", 10000, 10000 * 0.256 * 1.048576},
		{"gcp-pd-ssd(size=500GiB)", 15000, 240 * 1.048576},
		{"gcp-pd-balanced(size=100GiB)", 600, 28 * 1.048576},
		{"azure-premium-ssd-v2(size=100GiB,iops=5000,throughput=200)", 5000, 200},
		{"aws-st1(size=2048GiB)", 500, 80 * 1.048576},
	}
	for _, g := range good {
		c, ok := CapsOf(build(t, r, g.spec))
		if !ok {
			t.Fatalf("%s: no caps", g.spec)
		}
		if math.Abs(c.IOPS-g.iops) > 1e-9 || math.Abs(c.MBps-g.mbps) > 1e-9 {
			t.Errorf("%s: %v IOPS %v MB/s, want %v and %v", g.spec, c.IOPS, c.MBps, g.iops, g.mbps)
		}
	}
	st1, _ := CapsOf(build(t, r, "aws-st1(size=2048GiB)"))
	if math.Abs(st1.BurstMBps-500*1.048576) > 1e-9 || st1.CreditMiB != 2048*1024 {
		t.Errorf("st1 2 TiB burst %v MB/s on %v MiB of credit, want 524.288 on 2097152", st1.BurstMBps, st1.CreditMiB)
	}
	bad := []struct{ spec, want string }{
		{"aws-gp3(iops=17000,size=1000GiB)", "above the most this type allows, 16000 (AWS: 'You can provision additional IOPS (up to a maximum of 16,000)"},
		{"aws-gp3(size=10GiB,iops=6000)", "above 500 IOPS a GiB (at most 5000)"},
		{"aws-io2(size=100GiB,iops=200000)", "above 1000 IOPS a GiB (at most 100000)"},
		{"aws-gp3(size=20000GiB)", "larger than the type allows, 16384 GiB"},
		{"aws-gp3(iops=3000,throughput=1000)", "above 0.25 MiB/s per IOPS (at most 750 MiB/s)"},
		{"aws-st1(size=100GiB)", "smaller than the type allows, 125 GiB"},
		{"gcp-pd-ssd(iops=5000)", "this type's IOPS follow its size"},
	}
	for _, b := range bad {
		_, err := r.Build(b.spec)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: error %v, want one containing %q", b.spec, err, b.want)
		}
	}
}

// A cloud volume's power and embodied carbon follow its size and replicas:
// gp3 at 500 GiB is 0.536870912 TB x 2 replicas x 1.2 W and x 160 kg.
func TestCloudPowerAndEmbodied(t *testing.T) {
	r := testRegistry(t)
	m := build(t, r, "aws-gp3(size=500GiB)")
	tb := 500.0 * (1 << 30) / 1e12
	if p := powerOf(m); math.Abs(p.IdleW-tb*2*1.2) > 1e-9 || p.ActiveW != p.IdleW {
		t.Errorf("power %+v, want %v W idle and active", p, tb*2*1.2)
	}
	e, err := r.EmbodiedOf(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(e) != 1 || math.Abs(e[0].Kg-tb*2*160) > 1e-9 || e[0].LifeYears != 5 {
		t.Errorf("embodied %+v, want one item of %v kg over 5 years", e, tb*2*160)
	}
	v := VolumesOf(m)
	if len(v) != 1 || v[0].SizeGiB != 500 || v[0].IOPS != 3000 || v[0].Throughput != 125 || v[0].Replicas != 2 {
		t.Errorf("volumes %+v", v)
	}
}

// Every cloud profile's model stops at its caps: 4 KiB random reads at queue depth 32
// reach the IOPS the caps allow within 5% where the drives behind it are faster (the
// flash-backed ones), and never pass it (st1, whose disk is slower than its cap).
func TestCloudProfilesHoldTheirCaps(t *testing.T) {
	r := testRegistry(t)
	for _, p := range r.Profiles() {
		if p.Class != "cloud" {
			continue
		}
		caps, ok := CapsOf(build(t, r, p.Name))
		if !ok {
			t.Fatalf("%s: no caps", p.Name)
		}
		f, err := r.Characterize(p.Name)
		if err != nil {
			t.Fatal(err)
		}
		capIOPS := caps.RequestRate(4096, false, true)
		got := f.RandRead4KQD32IOPS
		if p.Text("inner") == "nvme" && math.Abs(got-capIOPS)/capIOPS > 0.05 {
			t.Errorf("%s: %.0f IOPS at queue depth 32, want the cap %.0f within 5%%", p.Name, got, capIOPS)
		}
		if got > capIOPS*1.05 {
			t.Errorf("%s: %.0f IOPS at queue depth 32 passes the cap %.0f", p.Name, got, capIOPS)
		}
	}
}
