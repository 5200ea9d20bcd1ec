package energy

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/procfs/sysfs"
)

// RAPL zones are read through the kernel's powercap interface (Documentation/power/
// powercap/powercap.rst): each zone has energy_uj, a counter in microjoules that
// wraps to 0 after max_energy_range_uj. The top-level zones intel-rapl:N are one
// package (socket) each; their subzone "dram" is the memory on that socket and is
// not part of the package's count; "core" and "uncore" are parts of the package and
// are not read. intel-rapl-mmio zones repeat the package through another interface
// and psys (the platform) overlaps everything, so neither is read.

// raplZone is one counter being followed.
type raplZone struct {
	name    string // package-0, dram-1
	path    string
	maxUJ   uint64
	zone    sysfs.RaplZone
	last    uint64 // energy_uj at the recorder's last complete reading
	hasLast bool
}

// rapl follows the package and DRAM zones of every socket.
type rapl struct {
	packages, drams []*raplZone
}

// WrapDelta is a RAPL counter's increase from prev to cur in microjoules: the counter
// runs from 0 to maxUJ (max_energy_range_uj) and starts again at 0, so a value below
// the previous one has wrapped once. Two wraps between readings cannot be told from
// one: read at least every few minutes (see MaxSampleInterval).
func WrapDelta(prev, cur, maxUJ uint64) uint64 {
	if cur >= prev {
		return cur - prev
	}
	return maxUJ - prev + cur
}

// MaxSampleInterval is the longest time between readings of a RAPL counter that
// cannot hide a wrap: a counter of 2^32 units of 61 µJ (262 kJ, the common range)
// wraps after 524 s at 500 W, the most one zone plausibly draws.
const MaxSampleInterval = time.Minute

// probeRAPL finds the zones under sysRoot's class/powercap and reads each once. With
// no usable zone it returns nil and why; a DRAM zone missing beside a package is
// noted the same way.
func probeRAPL(sysRoot string) (*rapl, []Unavailable) {
	what := "RAPL (CPU package and DRAM energy counters)"
	sfs, err := sysfs.NewFS(sysRoot)
	if err != nil {
		return nil, []Unavailable{{what, fmt.Sprintf("no sysfs at %s: %v", sysRoot, err)}}
	}
	zones, err := sysfs.GetRaplZones(sfs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, []Unavailable{{what, "no /sys/class/powercap: the kernel offers no power capping here " +
				"(a virtual machine, whose hypervisor hides the counters, or a kernel without the intel_rapl_msr driver loaded)"}}
		}
		return nil, []Unavailable{{what, fmt.Sprintf("/sys/class/powercap could not be read: %v", err)}}
	}
	r := &rapl{}
	for _, z := range zones {
		if !strings.HasPrefix(filepath.Base(z.Path), "intel-rapl:") {
			continue // intel-rapl-mmio repeats the package
		}
		rz := &raplZone{name: fmt.Sprintf("%s-%d", z.Name, z.Index), path: z.Path, maxUJ: z.MaxMicrojoules, zone: z}
		switch z.Name {
		case "package":
			r.packages = append(r.packages, rz)
		case "dram":
			r.drams = append(r.drams, rz)
		}
	}
	byName := func(zs []*raplZone) {
		sort.Slice(zs, func(i, j int) bool { return zs[i].name < zs[j].name })
	}
	byName(r.packages)
	byName(r.drams)
	if len(r.packages) == 0 {
		return nil, []Unavailable{{what, "/sys/class/powercap has no RAPL package zone (intel-rapl:N named package-N)"}}
	}
	for _, z := range append(append([]*raplZone{}, r.packages...), r.drams...) {
		if _, err := z.zone.GetEnergyMicrojoules(); err != nil {
			why := fmt.Sprintf("%s: %v", filepath.Join(z.path, "energy_uj"), err)
			if errors.Is(err, fs.ErrPermission) {
				why = filepath.Join(z.path, "energy_uj") + " is readable by root only (since Linux 5.10, against the " +
					"Platypus side channel, CVE-2020-8694): run as root, or make energy_uj readable"
			}
			return nil, []Unavailable{{what, why}}
		}
	}
	var notes []Unavailable
	if len(r.drams) == 0 {
		notes = append(notes, Unavailable{"RAPL DRAM energy", "the CPU's RAPL has no dram zone " +
			"(client CPUs and AMD CPUs report none): memory is modelled"})
	}
	return r, notes
}

// read reads zs and returns their joules since their last complete reading; the
// first reading returns ok false (a baseline). On an error nothing is kept, so the
// next reading spans the gap.
func readZones(zs []*raplZone) (joules float64, ok bool, err error) {
	cur := make([]uint64, len(zs))
	for i, z := range zs {
		v, err := z.zone.GetEnergyMicrojoules()
		if err != nil {
			return 0, false, fmt.Errorf("%s: %w", z.name, err)
		}
		// A counter beyond its range, or one that went back without a range to wrap
		// at, is a misread: its delta would be any number at all.
		switch {
		case z.maxUJ > 0 && v > z.maxUJ:
			return 0, false, fmt.Errorf("%s: energy_uj %d is above max_energy_range_uj %d", z.name, v, z.maxUJ)
		case z.maxUJ == 0 && z.hasLast && v < z.last:
			return 0, false, fmt.Errorf("%s: energy_uj went back from %d to %d, and the zone gives no max_energy_range_uj to wrap at", z.name, z.last, v)
		}
		cur[i] = v
	}
	ok = true
	for i, z := range zs {
		if z.hasLast {
			joules += float64(WrapDelta(z.last, cur[i], z.maxUJ)) / 1e6
		} else {
			ok = false
		}
		z.last, z.hasLast = cur[i], true
	}
	return joules, ok, nil
}

// zoneNames lists zs for a source: "package-0, package-1".
func zoneNames(zs []*raplZone) string {
	var names []string
	for _, z := range zs {
		names = append(names, z.name)
	}
	return strings.Join(names, ", ")
}
