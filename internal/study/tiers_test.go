package study

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestUnusedTiers: tiers declared once in params and chosen by a factor are left out
// of the commands of the cells that place nothing on them, the plan says so, and
// those cells validate; a tier no cell uses is still refused, as on the command line.
func TestUnusedTiers(t *testing.T) {
	src := `name: t
workload: oltp
params: {mix: bbs, tier: [fast=nvme, "slow=pagecache(hdd-7200,size=64MiB)"]}
factors:
  data: [fast, slow]
  temp: [slow]
`
	p := mustExpand(t, src, "")
	fast, slow := p.Cell("data=fast,temp=slow"), p.Cell("data=slow,temp=slow")
	if !slices.Equal(fast.Values["tier"], []string{"fast=nvme", "slow=pagecache(hdd-7200,size=64MiB)"}) ||
		!slices.Equal(slow.Values["tier"], []string{"slow=pagecache(hdd-7200,size=64MiB)"}) {
		t.Errorf("tiers: fast cell %q, slow cell %q", fast.Values["tier"], slow.Values["tier"])
	}
	if want := "tier fast=nvme holds nothing in 1 cell, whose commands leave it out: data=slow,temp=slow"; !slices.Contains(p.Notes, want) {
		t.Errorf("notes %q, want %q", p.Notes, want)
	}
	if slow.Fingerprint != fingerprint(*slow) {
		t.Error("the cell's fingerprint is not of the values it runs")
	}
	if err := p.Validate(context.Background(), t.TempDir()); err != nil {
		t.Errorf("validate: %v", err)
	}
	unused := strings.Replace(src, "tier: [fast=nvme,", "tier: [spare=sata-ssd, fast=nvme,", 1)
	err := mustExpand(t, unused, "").Validate(context.Background(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "--tier spare=sata-ssd holds nothing") {
		t.Errorf("a tier no cell uses: %v", err)
	}
}
