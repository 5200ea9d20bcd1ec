package emulator

// Media are the reads and writes that reached the storage media: the innermost
// devices of a composite spec (the device under a pagecache model, the members of a
// RAID), which a real device's own counters (/proc/diskstats) are compared with; for a
// plain profile the device's own requests.
func (d *DeviceStats) Media() (reads, writes int64) {
	if len(d.Members) == 0 {
		return d.Reads, d.Writes
	}
	for i, m := range d.Members {
		if i+1 < len(d.Members) && d.Members[i+1].Depth > m.Depth {
			continue // not a leaf: its requests are counted by its members
		}
		reads += m.Stats.Reads
		writes += m.Stats.Writes
	}
	return reads, writes
}
