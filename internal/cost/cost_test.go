package cost

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/device"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// throughJSON is s as a reader of result.json decodes it.
func throughJSON(t *testing.T, s *Section) Section {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Section
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

// A gp3 volume of 500 GiB with 6,000 IOPS and 250 MiB/s, on a host at $0.73 an hour,
// for an hour at 250 transactions a second (900,000), worked out by hand:
//
//	storage a month: 500 x 0.08 + (6000 - 3000) x 0.005 + (250 - 125) x 0.04 = 40 + 15 + 5 = $60
//	storage for the hour: 60 / 730 = $0.0821917808...
//	host for the hour: $0.73; a month 0.73 x 730 = $532.90
//	run: $0.8121917808..., per million transactions 0.8121917808 / 0.9 = $0.9024353120...
//	price/performance at 2,000 QphH@Size: (60 + 532.90) x 36 / 2 = $10,672.20 per kQphH
func TestComputeByHand(t *testing.T) {
	tbl, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	tbl.Host = &Host{USDPerHour: 0.73, Source: "test"}
	gp3 := device.Volume{Profile: "aws-gp3", SizeGiB: 500, IOPS: 6000, Throughput: 250, ThroughputUnit: "MiB/s", Replicas: 2}
	v2 := device.Volume{Profile: "azure-premium-ssd-v2", SizeGiB: 500, IOPS: 3000, Throughput: 125}
	s := Compute(tbl, []TierVolumes{{Tier: "fast", Volumes: []device.Volume{gp3}}, {Tier: "slow", Volumes: []device.Volume{v2}}},
		Work{Window: "measured", Seconds: 3600, TPS: 250, QphH: 2000})
	if s == nil || len(s.Volumes) != 1 {
		t.Fatalf("section %+v, want one priced volume", s)
	}
	checks := []struct {
		name      string
		got, want float64
	}{
		{"volume a month", s.Volumes[0].USDPerMonth, 60},
		{"storage", s.StorageUSD, 60.0 / 730},
		{"host", s.HostUSD, 0.73},
		{"run", s.USD, 60.0/730 + 0.73},
		{"a month", s.USDPerMonth, 60 + 532.9},
		{"per million transactions", s.USDPerMillionTransactions, (60.0/730 + 0.73) / 0.9},
		{"per kQphH", s.USDPerKQphH, 10672.2},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	// Premium SSD v2 has no sourced bundled price: it is named, not guessed.
	if len(s.Unpriced) != 1 || !strings.Contains(s.Unpriced[0], "no price for profile azure-premium-ssd-v2") {
		t.Errorf("unpriced %v, want azure-premium-ssd-v2 named", s.Unpriced)
	}
	// The section recomputes from result.json alone.
	back := throughJSON(t, s)
	back.StorageUSD, back.USD, back.USDPerMillionTransactions, back.USDPerKQphH = 0, 0, 0, 0
	again := Recompute(back)
	if !near(again.USD, s.USD) || !near(again.USDPerKQphH, s.USDPerKQphH) || !near(again.USDPerMillionTransactions, s.USDPerMillionTransactions) {
		t.Errorf("recomputed %+v, want %+v", again, *s)
	}
}

// Nothing billed and no host price: no section.
func TestComputeNothing(t *testing.T) {
	tbl, _ := Builtin()
	if s := Compute(tbl, nil, Work{Seconds: 10}); s != nil {
		t.Errorf("section %+v, want none", s)
	}
}

// A user file replaces a bundled price and adds the host's; bad files are refused
// with file:line.
func TestLoadPriceFile(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "prices.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := `host:
  usd_per_hour: 0.192
  source: my bill
volumes:
  aws-gp3:
    usd_per_gib_month: 0.0912
    source: my region
    date: 2026-11-01
`
	p := write(good)
	tbl, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if gp3, _ := tbl.Price("aws-gp3"); gp3.GiBMonth != 0.0912 || gp3.IOPSMonth != 0 || gp3.Origin != p {
		t.Errorf("gp3 %+v, want the file's", gp3)
	}
	if ssd, ok := tbl.Price("gcp-pd-ssd"); !ok || ssd.GiBMonth != 0.17 {
		t.Errorf("pd-ssd %+v, want the bundled price kept", ssd)
	}
	if tbl.Host == nil || tbl.Host.USDPerHour != 0.192 {
		t.Errorf("host %+v", tbl.Host)
	}
	bad := []struct{ body, want string }{
		{strings.Replace(good, "usd_per_gib_month: 0.0912", "usd_per_gib_month: -1", 1), ":6: aws-gp3: field usd_per_gib_month is -1"},
		{strings.Replace(good, "    source: my region\n", "", 1), ":5: aws-gp3: missing field source"},
		{strings.Replace(good, "usd_per_hour: 0.192", "usd_per_hour: cheap", 1), `:2: host: field usd_per_hour: "cheap" is not a number`},
		{strings.Replace(good, "date: 2026-11-01", "dated: 2026-11-01", 1), `:8: aws-gp3: unknown field "dated"`},
		{"hosts: {}\n", `:1: unknown key "hosts"`},
		{"volumes: {aws-gp3: {usd_per_gib_month: 0.08\n", `:1: the '{' opened on this line is not closed`},
		{"volumes:\n\taws-gp3: {}\n", `:2: a character that cannot start a value (such as '@', '` + "`" + `' or a tab)`},
	}
	known := func(n string) bool { return n != "aws-gp9" }
	if err := tbl.Check(known); err != nil {
		t.Errorf("check: %v", err)
	}
	typo, err := Load(write(strings.Replace(good, "aws-gp3:", "aws-gp9:", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := typo.Check(known); err == nil || !strings.Contains(err.Error(), p+`:5: volumes: unknown device profile "aws-gp9"`) {
		t.Errorf("check of a misspelt profile: %v", err)
	}
	for _, b := range bad {
		_, err := Load(write(b.body))
		if err == nil || !strings.Contains(err.Error(), p+b.want) || strings.Contains(err.Error(), ": yaml: ") {
			t.Errorf("error %v, want one containing %q", err, p+b.want)
		}
	}
}

// Every bundled price names its source and date.
func TestBuiltinSourced(t *testing.T) {
	tbl, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if len(tbl.Names()) == 0 {
		t.Fatal("no bundled prices")
	}
	for _, n := range tbl.Names() {
		p, _ := tbl.Price(n)
		if p.Source == "" || p.Date == "" || p.GiBMonth <= 0 {
			t.Errorf("%s: %+v", n, p)
		}
	}
}

// The bundled io2 price is tiered by provisioned IOPS and st1's is by size alone;
// each worked out by hand (US East prices, prices.yaml):
//
//	io2 200 GiB, 6,000 IOPS:   200 x 0.125 + 6000 x 0.065 = 25 + 390 = $415
//	io2 100 GiB, 32,000 IOPS:  12.5 + 32000 x 0.065 = 12.5 + 2080 = $2,092.50
//	io2 100 GiB, 40,000 IOPS:  12.5 + 2080 + 8000 x 0.046 = 12.5 + 2080 + 368 = $2,460.50
//	io2 2,000 GiB, 80,000 IOPS: 250 + 2080 + 32000 x 0.046 + 16000 x 0.032
//	                         = 250 + 2080 + 1472 + 512 = $4,314
//	st1 500 GiB:               500 x 0.045 = $22.50 (its throughput is not billed)
func TestBundledTieredAndHDDByHand(t *testing.T) {
	tbl, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	io2, ok := tbl.Price("aws-io2")
	if !ok {
		t.Fatal("no bundled aws-io2 price")
	}
	st1, ok := tbl.Price("aws-st1")
	if !ok {
		t.Fatal("no bundled aws-st1 price")
	}
	cases := []struct {
		v    device.Volume
		p    Price
		want float64
	}{
		{device.Volume{Profile: "aws-io2", SizeGiB: 200, IOPS: 6000}, io2, 415},
		{device.Volume{Profile: "aws-io2", SizeGiB: 100, IOPS: 32000}, io2, 2092.5},
		{device.Volume{Profile: "aws-io2", SizeGiB: 100, IOPS: 40000}, io2, 2460.5},
		{device.Volume{Profile: "aws-io2", SizeGiB: 2000, IOPS: 80000}, io2, 4314},
		{device.Volume{Profile: "aws-st1", SizeGiB: 500, Throughput: 20}, st1, 22.5},
	}
	for _, c := range cases {
		if got := Monthly(c.v, c.p); !near(got, c.want) {
			t.Errorf("%s %g GiB %g IOPS: $%v a month, want $%v", c.v.Profile, c.v.SizeGiB, c.v.IOPS, got, c.want)
		}
	}
	// An hour of the 6,000 IOPS io2 volume at 1,000 transactions a second
	// (3.6 million): 415 / 730 = $0.5684931507 for the hour, $0.1579147641 per million.
	s := Compute(tbl, []TierVolumes{{Tier: "data", Volumes: []device.Volume{cases[0].v}}}, Work{Window: "w", Seconds: 3600, TPS: 1000})
	if s == nil || len(s.Unpriced) != 0 || !near(s.USD, 415.0/730) || !near(s.USDPerMillionTransactions, 415.0/730/3.6) {
		t.Fatalf("io2 section %+v, want $%v and $%v per million", s, 415.0/730, 415.0/730/3.6)
	}
	// The tiers travel in result.json, so the section recomputes from it alone.
	back := throughJSON(t, s)
	back.USD, back.USDPerMillionTransactions, back.Volumes[0].USDPerMonth = 0, 0, 0
	if again := Recompute(back); !near(again.USD, s.USD) || !near(again.Volumes[0].USDPerMonth, 415) {
		t.Errorf("recomputed %+v, want $%v ($415 a month)", again, s.USD)
	}
}

// A user's tiered price with included IOPS: the included ones are free in the tier
// they fall in. By hand, 15,000 IOPS with 3,000 free, $0.01 up to 10,000 and $0.005
// above: (10000 - 3000) x 0.01 + (15000 - 10000) x 0.005 = 70 + 25 = $95; 2,000 IOPS
// are all free: $0. Bad tiers are refused with file:line.
func TestTieredPriceFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "prices.yaml")
	write := func(body string) {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	good := `volumes:
  aws-io2:
    usd_per_gib_month: 0
    iops_free: 3000
    iops_tiers:
      - up_to: 10000
        usd_per_iops_month: 0.01
      - usd_per_iops_month: 0.005
    source: my bill
    date: 2026-11-01
`
	write(good)
	tbl, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := tbl.Price("aws-io2")
	for _, c := range []struct{ iops, want float64 }{{15000, 95}, {10000, 70}, {2000, 0}} {
		if got := IOPSMonthly(c.iops, p); !near(got, c.want) {
			t.Errorf("%v IOPS: $%v a month, want $%v", c.iops, got, c.want)
		}
	}
	bad := []struct{ body, want string }{
		{strings.Replace(good, "    iops_free: 3000\n", "    iops_free: 3000\n    usd_per_iops_month: 0.065\n", 1), ":2: aws-io2: give usd_per_iops_month or iops_tiers, not both"},
		{strings.Replace(good, "      - usd_per_iops_month: 0.005", "      - up_to: 20000\n        usd_per_iops_month: 0.005", 1), ":8: aws-io2: iops_tiers[1]: the last tier has no up_to"},
		{strings.Replace(good, "up_to: 10000", "up_to: 0", 1), ":6: aws-io2: iops_tiers[0]: up_to 0 must be above"},
		{strings.Replace(good, "iops_tiers:\n      - up_to: 10000\n        usd_per_iops_month: 0.01\n      - usd_per_iops_month: 0.005\n", "iops_tiers: []\n", 1), ":5: aws-io2: iops_tiers is a list of tiers"},
		{strings.Replace(good, "usd_per_iops_month: 0.01", "usd_per_iops_month: -0.01", 1), ":7: aws-io2: iops_tiers[0]: field usd_per_iops_month is -0.01"},
	}
	for _, b := range bad {
		write(b.body)
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), path+b.want) {
			t.Errorf("error %v, want one containing %q", err, path+b.want)
		}
	}
}

// Hyperdisk Balanced and Premium SSD v2 have no bundled price (no stored source gave
// their rates, prices.yaml): a run on either names it unpriced and adds nothing. A
// price file prices each by its own free baseline (Hyperdisk Balanced's 3,000 IOPS
// and 140 MiB/s, Premium SSD v2's 3,000 IOPS and 125 MB/s). The volumes are the
// profiles' own, built from specs; the file's figures are a test's, not prices. By
// hand, 100 GiB at 6,000 IOPS and 240 of throughput, at $0.10 a GiB, $0.01 an IOPS
// and $0.10 a throughput unit a month above the baseline:
//
//	hyperdisk: 100 x 0.10 + (6000 - 3000) x 0.01 + (240 - 140) x 0.10 = 10 + 30 + 10   = $50
//	v2:        100 x 0.10 + (6000 - 3000) x 0.01 + (240 - 125) x 0.10 = 10 + 30 + 11.5 = $51.50
//
// and over half an hour (1,800 s) at 500 transactions a second (900,000):
// (50 + 51.5) / 730 / 2 = $0.0695205479..., $0.0772450532... per million.
func TestUnbundledProfilesByHand(t *testing.T) {
	reg, err := device.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var tiers []TierVolumes
	for _, spec := range []string{"gcp-hyperdisk-balanced(size=100GiB,iops=6000,throughput=240)", "azure-premium-ssd-v2(size=100GiB,iops=6000,throughput=240)"} {
		m, err := reg.Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		v := device.VolumesOf(m)
		if len(v) != 1 || v[0].SizeGiB != 100 || v[0].IOPS != 6000 || v[0].Throughput != 240 {
			t.Fatalf("%s: volumes %+v", spec, v)
		}
		tiers = append(tiers, TierVolumes{Tier: v[0].Profile, Volumes: v})
	}
	work := Work{Window: "measured", Seconds: 1800, TPS: 500}
	tbl, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	s := Compute(tbl, tiers, work)
	if s == nil || len(s.Volumes) != 0 || len(s.Unpriced) != 2 || s.USD != 0 ||
		!strings.Contains(s.Unpriced[0], "no price for profile gcp-hyperdisk-balanced") || !strings.Contains(s.Unpriced[1], "no price for profile azure-premium-ssd-v2") {
		t.Fatalf("bundled: %+v, want both named unpriced and no cost", s)
	}
	path := filepath.Join(t.TempDir(), "prices.yaml")
	body := `# a test's figures, not prices
volumes:
  gcp-hyperdisk-balanced:
    usd_per_gib_month: 0.10
    usd_per_iops_month: 0.01
    iops_free: 3000
    usd_per_throughput_month: 0.10
    throughput_free: 140
    source: test
    date: 2026-11-28
  azure-premium-ssd-v2:
    usd_per_gib_month: 0.10
    usd_per_iops_month: 0.01
    iops_free: 3000
    usd_per_throughput_month: 0.10
    throughput_free: 125
    source: test
    date: 2026-11-28
`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if tbl, err = Load(path); err != nil {
		t.Fatal(err)
	}
	s = Compute(tbl, tiers, work)
	if s == nil || len(s.Unpriced) != 0 || len(s.Volumes) != 2 {
		t.Fatalf("priced by file: %+v", s)
	}
	for i, want := range []float64{50, 51.5} {
		if !near(s.Volumes[i].USDPerMonth, want) {
			t.Errorf("%s: $%v a month, want $%v", s.Volumes[i].Volume.Profile, s.Volumes[i].USDPerMonth, want)
		}
	}
	if !near(s.USD, 101.5/730/2) || !near(s.USDPerMillionTransactions, 101.5/730/2/0.9) {
		t.Errorf("run $%v, $%v per million; want $%v and $%v", s.USD, s.USDPerMillionTransactions, 101.5/730/2, 101.5/730/2/0.9)
	}
}
