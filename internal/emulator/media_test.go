package emulator

import (
	"testing"

	"tierbench/internal/device"
)

// Media counts the leaves of a composite: a page cache over a RAID 10 of two disks
// sends its misses to the RAID, whose members are the media.
func TestMediaCountsTheLeaves(t *testing.T) {
	d := DeviceStats{Reads: 1000, Writes: 400, Members: []MemberStats{
		{Depth: 1, Name: "raid10", Stats: device.Stats{Reads: 90, Writes: 30}},
		{Depth: 2, Name: "hdd-a", Stats: device.Stats{Reads: 50, Writes: 30}},
		{Depth: 2, Name: "hdd-b", Stats: device.Stats{Reads: 40, Writes: 30}},
	}}
	if r, w := d.Media(); r != 90 || w != 60 {
		t.Errorf("media %d reads, %d writes; want 90 and 60 (the two disks)", r, w)
	}
	plain := DeviceStats{Reads: 7, Writes: 3}
	if r, w := plain.Media(); r != 7 || w != 3 {
		t.Errorf("a plain device: %d reads, %d writes; want its own 7 and 3", r, w)
	}
}
