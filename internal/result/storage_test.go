package result

import (
	"testing"

	"tierbench/internal/device"
)

// TestEnergyDevices: the storage section's own figures reach package energy, one
// device per emulated tier, and a directory tier (no device) gives none.
func TestEnergyDevices(t *testing.T) {
	s := &Storage{Tiers: []TierResult{
		{Name: "slow", Kind: "emulated", Spec: "hdd-7200",
			Profile: &ProfileInfo{Name: "hdd-7200", Power: device.Power{IdleW: 7.5, ActiveW: 12, Source: "Seagate manual"}},
			Device:  &DeviceResult{ElapsedS: 100, BusyS: 20, EnergyJ: 840, IdleEnergyJ: 750}},
		{Name: "fast", Kind: "directory", Dir: "/srv/nvme"},
	}}
	got := s.EnergyDevices()
	if len(got) != 1 {
		t.Fatalf("%d devices, want 1: %+v", len(got), got)
	}
	d := got[0]
	if d.Name != "slow" || d.Spec != "hdd-7200" || d.Joules != 840 || d.IdleJoules != 750 || d.Seconds != 100 {
		t.Errorf("device %+v, want slow/hdd-7200 840 J, 750 J idle, 100 s", d)
	}
	if want := "profile hdd-7200, 7.5 W idle, 12 W active (Seagate manual); E = P_idle x T + (P_active - P_idle) x T_busy from mount to unmount"; d.Source != want {
		t.Errorf("source %q\nwant   %q", d.Source, want)
	}
	if (*Storage)(nil).EnergyDevices() != nil {
		t.Error("a nil storage section has devices")
	}
}
