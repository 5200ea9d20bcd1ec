package energy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrapDelta: a counter below its previous value has wrapped at
// max_energy_range_uj once.
func TestWrapDelta(t *testing.T) {
	const maxUJ = 262143328850
	for _, c := range []struct{ prev, cur, want uint64 }{
		{100, 250, 150},
		{5, 5, 0},
		{maxUJ - 100, 50, 150},          // 100 to the top, 50 after it
		{maxUJ, 0, 0},                   // exactly at the top, then 0
		{1_000_000, 999_999, maxUJ - 1}, // one below: almost a whole range
	} {
		if got := WrapDelta(c.prev, c.cur, maxUJ); got != c.want {
			t.Errorf("WrapDelta(%d, %d) = %d, want %d", c.prev, c.cur, got, c.want)
		}
	}
}

// TestProbeRAPL: the fake tree has two packages with a dram zone each, core zones
// (parts of the package), and an mmio zone that repeats package 0: only the packages
// and drams are followed.
func TestProbeRAPL(t *testing.T) {
	r, notes := probeRAPL("testdata/sys")
	if r == nil {
		t.Fatalf("no RAPL: %v", notes)
	}
	if len(notes) != 0 {
		t.Errorf("notes %v, want none", notes)
	}
	if got := zoneNames(r.packages); got != "package-0, package-1" {
		t.Errorf("packages %q", got)
	}
	if got := zoneNames(r.drams); got != "dram-0, dram-1" {
		t.Errorf("drams %q", got)
	}
	for _, z := range r.packages {
		if strings.Contains(z.path, "mmio") || z.maxUJ != 262143328850 {
			t.Errorf("package zone %s at %s, max %d", z.name, z.path, z.maxUJ)
		}
	}
}

// TestProbeRAPLMissing: no powercap (a virtual machine) and a tree without DRAM are
// said, not errors.
func TestProbeRAPLMissing(t *testing.T) {
	r, notes := probeRAPL(noSys(t))
	if r != nil || len(notes) != 1 || !strings.Contains(notes[0].Why, "no /sys/class/powercap") {
		t.Errorf("without powercap: %v %v", r, notes)
	}
	sys := fakeSys(t)
	for _, z := range []string{"intel-rapl:0:1", "intel-rapl:1:1"} {
		if err := os.RemoveAll(filepath.Join(sys, "class", "powercap", z)); err != nil {
			t.Fatal(err)
		}
	}
	r, notes = probeRAPL(sys)
	if r == nil || len(r.drams) != 0 || len(notes) != 1 || !strings.Contains(notes[0].Why, "no dram zone") {
		t.Errorf("without dram zones: %v %v", r, notes)
	}
	for _, z := range []string{"intel-rapl:0", "intel-rapl:1"} {
		os.RemoveAll(filepath.Join(sys, "class", "powercap", z))
	}
	r, notes = probeRAPL(sys)
	if r != nil || len(notes) != 1 || !strings.Contains(notes[0].Why, "no RAPL package zone") {
		t.Errorf("without package zones: %v %v", r, notes)
	}
}
