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
	st1 := device.Volume{Profile: "aws-st1", SizeGiB: 500}
	s := Compute(tbl, []TierVolumes{{Tier: "fast", Volumes: []device.Volume{gp3}}, {Tier: "slow", Volumes: []device.Volume{st1}}},
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
	// st1 has no sourced bundled price: it is named, not guessed.
	if len(s.Unpriced) != 1 || !strings.Contains(s.Unpriced[0], "no price for profile aws-st1") {
		t.Errorf("unpriced %v, want aws-st1 named", s.Unpriced)
	}
	// The section recomputes from result.json alone.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Section
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
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
		if err == nil || !strings.Contains(err.Error(), p+b.want) {
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
