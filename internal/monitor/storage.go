package monitor

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// sectorBytes is the unit of /proc/diskstats' sector counts, whatever the device's.
const sectorBytes = procfs.SectorSize

var storageSeries = []SeriesInfo{
	value("disk.<disk>.read_iops", "per_s", "reads completed a second (disk: the kernel's name of a whole disk under a directory)"),
	value("disk.<disk>.write_iops", "per_s", "writes completed a second"),
	value("disk.<disk>.read_mb_s", "mb_s", "MB read a second"),
	value("disk.<disk>.write_mb_s", "mb_s", "MB written a second"),
	value("disk.<disk>.flush_per_s", "per_s", "flushes (cache flushes, fsync) completed a second, on kernels that count them (5.5 and later)"),
	value("disk.<disk>.util_pct", "pct", "share of the time the disk had I/O in flight (iostat's %util); a device that serves requests in parallel (NVMe, arrays) can be far from saturated at 100"),
	value("disk.<disk>.await_ms", "ms", "mean time a read or write took, queueing included (iostat's await)"),
	value("disk.<disk>.r_await_ms", "ms", "mean time a read took"),
	value("disk.<disk>.w_await_ms", "ms", "mean time a write took"),
	value("disk.<disk>.queue_depth", "requests", "mean requests in flight (iostat's aqu-sz): the weighted time in I/O over the time"),
	value("disk.<disk>.in_flight", "requests", "requests in flight at the sample"),
	counter("disk.<disk>.reads", "reads", "reads completed since boot"),
	counter("disk.<disk>.writes", "writes", "writes completed since boot"),
	counter("disk.<disk>.flushes", "flushes", "flushes completed since boot"),
	counter("disk.<disk>.read_bytes", "bytes", "bytes read since boot"),
	counter("disk.<disk>.write_bytes", "bytes", "bytes written since boot"),
	counter("disk.<disk>.busy_s", "seconds", "time with I/O in flight since boot; a window's utilisation is its delta over the window"),
	counter("disk.<disk>.rw_wait_s", "seconds", "time reads and writes took, summed, since boot; a window's await is its delta over the reads' and writes'"),
	counter("disk.<disk>.r_wait_s", "seconds", "the part of rw_wait_s reads took: their share of the disk's time"),
	counter("disk.<disk>.w_wait_s", "seconds", "the part of rw_wait_s writes took"),
	counter("disk.<disk>.queue_s", "seconds", "time in I/O weighted by the requests in flight since boot; a window's queue depth is its delta over the window"),
}

// Directory is a directory whose disks the storage source follows, labelled by what
// it holds ("data", "wal", "temp").
type Directory struct {
	Label, Path string
}

// Storage reads the whole disks under directories from /proc/diskstats: IOPS, MB/s,
// utilisation, await and queue depth.
type Storage struct {
	fs         blockdevice.FS
	placements []Placement
	disks      []string
	d          deltas
}

// NewStorage maps each directory to the disks under it through the sysfs at sysRoot
// and the proc file system at procRoot ("" is /sys and /proc). A directory on no block
// device (tmpfs, an emulated device) is noted in its Placement, not an error.
func NewStorage(procRoot, sysRoot string, dirs []Directory) (*Storage, error) {
	if procRoot == "" {
		procRoot = procfs.DefaultMountPoint
	}
	if sysRoot == "" {
		sysRoot = "/sys"
	}
	return newStorage(procRoot, sysRoot, dirs, statDev)
}

func newStorage(procRoot, sysRoot string, dirs []Directory, stat func(string) (uint64, uint64, error)) (*Storage, error) {
	bfs, err := blockdevice.NewFS(procRoot, sysRoot)
	if err != nil {
		return nil, fmt.Errorf("monitor: storage: %w", err)
	}
	pfs, err := procfs.NewFS(procRoot)
	if err != nil {
		return nil, fmt.Errorf("monitor: storage: %w", err)
	}
	res := &resolver{sys: sysRoot, proc: pfs, statDev: stat}
	s := &Storage{fs: bfs}
	for _, d := range dirs {
		if d.Path == "" {
			continue
		}
		p := res.place(d.Label, d.Path)
		s.placements = append(s.placements, p)
		s.disks = appendNew(s.disks, p.Disks...)
	}
	return s, nil
}

func (s *Storage) Name() string         { return "storage" }
func (s *Storage) Series() []SeriesInfo { return storageSeries }

// Placements say which disks each directory is on.
func (s *Storage) Placements() []Placement { return s.placements }

func (s *Storage) Unavailable() []Unavailable {
	var out []Unavailable
	for _, p := range s.placements {
		if p.Unavailable != "" {
			out = append(out, Unavailable{What: "the disk of " + p.Label + " (" + p.Path + ")", Why: p.Unavailable})
		}
	}
	return out
}

func (s *Storage) Read(_ context.Context, now time.Time, r *Reading) error {
	if len(s.disks) == 0 {
		return nil
	}
	s.d.begin(now)
	stats, err := s.fs.ProcDiskstats()
	if err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	byName := map[string]blockdevice.Diskstats{}
	for _, st := range stats {
		byName[st.DeviceName] = st
	}
	var missing []string
	for _, disk := range s.disks {
		st, ok := byName[disk]
		if !ok {
			missing = append(missing, disk)
			continue
		}
		s.disk(r, label(disk), st)
	}
	s.d.commit()
	if len(missing) > 0 {
		return fmt.Errorf("storage: %s not in /proc/diskstats", joinWords(missing))
	}
	return nil
}

// disk adds one disk's counters and the values from their deltas.
func (s *Storage) disk(r *Reading, disk string, st blockdevice.Diskstats) {
	base := join("disk", disk)
	counters := map[string]float64{
		"reads": float64(st.ReadIOs), "writes": float64(st.WriteIOs),
		"read_bytes": float64(st.ReadSectors) * sectorBytes, "write_bytes": float64(st.WriteSectors) * sectorBytes,
		"busy_s":    float64(st.IOsTotalTicks) / 1000,
		"rw_wait_s": float64(st.ReadTicks+st.WriteTicks) / 1000,
		"r_wait_s":  float64(st.ReadTicks) / 1000, "w_wait_s": float64(st.WriteTicks) / 1000,
		"queue_s": float64(st.WeightedIOTicks) / 1000,
	}
	if st.IoStatsCount >= 20 {
		counters["flushes"] = float64(st.FlushRequestsCompleted)
	}
	delta, secs, ok := s.d.device(r, base, counters)
	r.Value(base+".in_flight", float64(st.IOsInProgress))
	if !ok {
		return
	}
	ioValues(r, base, delta, secs)
	r.Value(base+".queue_depth", delta["queue_s"]/secs)
	r.Value(base+".await_ms", perIO(delta["rw_wait_s"], delta["reads"]+delta["writes"]))
	r.Value(base+".r_await_ms", perIO(delta["r_wait_s"], delta["reads"]))
	r.Value(base+".w_await_ms", perIO(delta["w_wait_s"], delta["writes"]))
}

// perIO is the mean milliseconds of secs over n requests, 0 without requests.
func perIO(secs, n float64) float64 {
	if n <= 0 {
		return 0
	}
	return 1000 * secs / n
}
