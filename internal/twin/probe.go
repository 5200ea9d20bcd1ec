package twin

import (
	"time"

	"tierbench/internal/device"
)

// probeKind says how a probe issues its requests.
type probeKind int

const (
	// kindRandom: requests of Size at random aligned offsets of the working set, Depth
	// at once (Depth threads, each waiting for its request, as a database's threads do).
	kindRandom probeKind = iota
	// kindSequential: Size after Size through the working set, one at a time.
	kindSequential
	// kindFlush: an O_DIRECT overwrite of Size, then fdatasync, timed together: what
	// a write and the device's cache flush after it cost, with nothing for the file
	// system's journal to write. Timed together because a device may charge the flush
	// for the write before it: a throttle that has let the write through at once makes
	// the flush wait for both their turns.
	kindFlush
	// kindCommit: a buffered write of Size (appended within a preallocated file, as a
	// write-ahead log is), then fdatasync, timed together: what a database's commit
	// costs. A check of the model with a page cache in front, not a fitted figure.
	kindCommit
	// kindWriteback: Size blocks at writebackBlocks random aligned offsets written
	// through the page cache, then fdatasync, of which only the fdatasync is timed:
	// the kernel writes the blocks back as a database's checkpoint has it do,
	// keeping the block layer's queue full (nr_requests), which threads each waiting
	// for one request cannot do on a host with few CPUs. Its rate is the writes a
	// second the device passes at that depth.
	kindWriteback
)

// writebackBlocks is how many blocks a writeback probe dirties before each
// fdatasync: 4096, a checkpoint's worth (32 MiB at 8 KiB), many times any block
// layer's queue.
const writebackBlocks = 4096

// probe is one fio-like job of the fit (docs/devices.md, "Device twins").
type probe struct {
	Name   string
	Metric string
	kind   probeKind
	op     device.Op
	size   int64
	depth  int
	// readShare is the share of reads of a mixed random probe (0: op alone).
	readShare float64
}

// Probe metrics.
const (
	metricMeanLatency = "mean_latency_us"
	metricIOPS        = "iops"
	metricMBps        = "mb_per_s"
	metricPerSecond   = "per_s"
)

// block is the size of the random probes' requests: 8 KiB, the page of PostgreSQL and
// of SQLite's default build, and half of InnoDB's.
const block = 8 << 10

const seqSize = 1 << 20

// mixReadShare is the mixed probe's share of reads: 70%, the read share fio's and
// vendors' "70/30" mixed figures use.
const mixReadShare = 0.7

// depth is the queue depth of the deep probes: 32, the NCQ queue of SATA and the
// depth vendors quote IOPS at.
const depth = device.IOPSDepth

// deepDepth is the queue depth of the deepest probes: 128. A block layer queues more
// than 32 (a virtio disk's here holds 256 requests, 128 of them in the device), and a
// page cache's writeback fills it: on this host's disk one passed 121-139 thousand
// writes a second where the depth-32 probe passed 56 thousand (docs/devices.md, "The
// flush's scope, measured"). Writes are probed that way (writeback-8k): 128 threads
// each waiting for its write passed 44-51 thousand here, bound by the host's two
// CPUs, not by the device.
const deepDepth = device.DeepIOPSDepth

// The probes, in the order each round runs them.
var probes = []probe{
	{Name: "seqwrite-1m-qd1", Metric: metricMBps, kind: kindSequential, op: device.OpWrite, size: seqSize, depth: 1},
	{Name: "seqread-1m-qd1", Metric: metricMBps, kind: kindSequential, op: device.OpRead, size: seqSize, depth: 1},
	{Name: "randread-8k-qd1", Metric: metricMeanLatency, kind: kindRandom, op: device.OpRead, size: block, depth: 1},
	{Name: "randwrite-8k-qd1", Metric: metricMeanLatency, kind: kindRandom, op: device.OpWrite, size: block, depth: 1},
	{Name: "randread-8k-qd32", Metric: metricIOPS, kind: kindRandom, op: device.OpRead, size: block, depth: depth},
	{Name: "randwrite-8k-qd32", Metric: metricIOPS, kind: kindRandom, op: device.OpWrite, size: block, depth: depth},
	{Name: "randread-8k-qd128", Metric: metricIOPS, kind: kindRandom, op: device.OpRead, size: block, depth: deepDepth},
	{Name: "writeback-8k", Metric: metricIOPS, kind: kindWriteback, op: device.OpWrite, size: block, depth: 1},
	{Name: "randrw70-8k-qd32", Metric: metricIOPS, kind: kindRandom, op: device.OpRead, size: block, depth: depth, readShare: mixReadShare},
	{Name: "writeflush-8k", Metric: metricMeanLatency, kind: kindFlush, op: device.OpFlush, size: block, depth: 1},
	{Name: "commit-8k", Metric: metricPerSecond, kind: kindCommit, op: device.OpWrite, size: block, depth: 1},
}

// probeNamed returns the probe of that name.
func probeNamed(name string) probe {
	for _, p := range probes {
		if p.Name == name {
			return p
		}
	}
	panic("twin: no probe " + name)
}

// round is one run of one probe: how many requests it made in how long, and the
// latency of each when it ran one at a time (all of them at depth: each thread's).
type round struct {
	requests  int64
	bytes     int64
	elapsed   time.Duration
	latencies []time.Duration
}

// figure is the probe's metric for a round.
func (p probe) figure(r round) float64 {
	switch p.Metric {
	case metricMeanLatency:
		return meanUs(r.latencies)
	case metricMBps:
		return float64(r.bytes) / r.elapsed.Seconds() / 1e6
	default:
		return float64(r.requests) / r.elapsed.Seconds()
	}
}

func meanUs(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	var sum float64
	for _, d := range ds {
		sum += float64(d)
	}
	return sum / float64(len(ds)) / 1e3
}
