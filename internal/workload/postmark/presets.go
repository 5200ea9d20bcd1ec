package postmark

import (
	"fmt"
	"strings"
	"time"
)

// Preset is a load level of the SAN study: Postmark's parameters for it and why.
type Preset struct {
	Name   string
	Config Config
	// Target is the device utilisation the level aims at, Why how the parameters get
	// there.
	Target, Why string
}

// presets are the SAN study's four load levels. Postmark runs its transactions as fast
// as it can, so a level is set by how much of its work reaches the device, not by a
// rate: how much data each transaction moves, how long files live (data written and
// deleted before the kernel writes it back never reaches the device), and whether
// the files stay in the page cache. The utilisations aimed at are those of a
// disk-based array such as the study's SAN (a few hundred MB/s, a few hundred IOPS
// per spindle); a faster device is busy for less of the time at every level.
var presets = []Preset{
	{
		Name:   "non-load",
		Config: Config{Idle: time.Minute},
		Target: "0%: the device idle",
		Why:    "no files and no I/O for a minute: the devices' idle power, the baseline the other levels are compared with",
	},
	{
		Name: "low",
		Config: Config{Files: 1000, Transactions: 20000, SizeMin: 512, SizeMax: 16 << 10, Subdirs: 10,
			ReadBlock: 4096, WriteBlock: 4096, Buffered: true, ReadBias: 5, CreateBias: 5, Seed: 42},
		Target: "under 20%: the device mostly idle",
		Why: "a mail-server pool of small files (512 B to 16 KiB, 8 MiB, at most 10 MiB) that stays in any page cache; " +
			"files live for seconds, so most are deleted before writeback and the device sees little beyond metadata and the journal",
	},
	{
		Name: "medium",
		Config: Config{Files: 5000, Transactions: 50000, SizeMin: 4 << 10, SizeMax: 128 << 10, Subdirs: 50,
			ReadBlock: 16 << 10, WriteBlock: 16 << 10, Buffered: true, ReadBias: 5, CreateBias: 5, Seed: 42},
		Target: "about 50%",
		Why: "files of 4 KiB to 128 KiB (a 320 MiB pool, at most 460 MiB: larger than small page cache models and array caches) " +
			"and 16 KiB blocks: each transaction writes about 50 KiB and reads 40 KiB, so writeback of small files runs through the run while reads mostly hit the cache",
	},
	{
		Name: "high",
		Config: Config{Files: 10000, Transactions: 100000, SizeMin: 64 << 10, SizeMax: 1 << 20, Subdirs: 100,
			ReadBlock: 64 << 10, WriteBlock: 64 << 10, Buffered: false, ReadBias: 5, CreateBias: 5, Seed: 42},
		Target: "90% or more: the device saturated",
		Why: "files of 64 KiB to 1 MiB (a 5.3 GiB pool, at most 7 GiB) written and read in 64 KiB system calls with no buffer in the process: " +
			"each transaction writes about 0.4 MiB and reads 0.3 MiB (39 GiB written in all), far more than writeback can hold back",
	},
}

// Presets lists the load levels, from none to high.
func Presets() []Preset { return append([]Preset(nil), presets...) }

// PresetNames lists the levels' names.
func PresetNames() []string {
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.Name
	}
	return names
}

// LookupPreset returns a level's parameters.
func LookupPreset(name string) (Config, error) {
	for _, p := range presets {
		if p.Name == name {
			return p.Config, nil
		}
	}
	return Config{}, fmt.Errorf("--preset %q: give one of %s", name, strings.Join(PresetNames(), ", "))
}
