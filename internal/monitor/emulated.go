package monitor

import (
	"context"
	"fmt"
	"time"
)

var emulatedSeries = []SeriesInfo{
	value("emu.<tier>.read_iops", "per_s", "reads the emulated device served a second (tier: the tier's name)"),
	value("emu.<tier>.write_iops", "per_s", "writes served a second"),
	value("emu.<tier>.flush_per_s", "per_s", "flushes (fsync) served a second"),
	value("emu.<tier>.read_mb_s", "mb_s", "MB read a second"),
	value("emu.<tier>.write_mb_s", "mb_s", "MB written a second"),
	value("emu.<tier>.media_read_iops", "per_s", "reads that reached the media a second: the innermost devices of a composite (the device under a pagecache model), as a real disk's counters count them"),
	value("emu.<tier>.media_write_iops", "per_s", "writes that reached the media a second"),
	value("emu.<tier>.util_pct", "pct", "share of the time the device model was busy"),
	value("emu.<tier>.await_ms", "ms", "mean time a request spent in the emulator, arrival to reply"),
	value("emu.<tier>.queue_depth", "requests", "requests in the device at the sample"),
	counter("emu.<tier>.reads", "reads", "reads served since the mount"),
	counter("emu.<tier>.writes", "writes", "writes served since the mount"),
	counter("emu.<tier>.flushes", "flushes", "flushes served since the mount"),
	counter("emu.<tier>.media_reads", "reads", "reads that reached the media since the mount"),
	counter("emu.<tier>.media_writes", "writes", "writes that reached the media since the mount"),
	counter("emu.<tier>.read_bytes", "bytes", "bytes read since the mount"),
	counter("emu.<tier>.write_bytes", "bytes", "bytes written since the mount"),
	counter("emu.<tier>.busy_s", "seconds", "the model's busy time since the mount"),
	counter("emu.<tier>.latency_s", "seconds", "time requests spent in the emulator, summed, since the mount"),
	counter("emu.<tier>.read_latency_s", "seconds", "the part of latency_s reads spent: their share of the device's time"),
}

// EmulatedDevice is one emulated device's cumulative counters, as the emulator keeps
// them (placement.Placed.Stats).
type EmulatedDevice struct {
	Name                   string
	Reads, Writes, Flushes int64
	// MediaReads and MediaWrites are the requests that reached the media: the
	// innermost devices of a composite spec; a plain profile's own requests.
	MediaReads, MediaWrites int64
	ReadBytes, WriteBytes   int64
	// Busy is the model's busy time; Latency the requests' time in the emulator,
	// summed, and ReadLatency the reads' part of it.
	Busy, Latency, ReadLatency time.Duration
	// QueueDepth is the requests in the device now.
	QueueDepth int64
}

// Emulated reads the emulated devices' counters through read, which the caller
// supplies (the emulator lives with the placement of the run's files).
type Emulated struct {
	read func() ([]EmulatedDevice, error)
	d    deltas
}

// NewEmulated follows the devices read returns.
func NewEmulated(read func() ([]EmulatedDevice, error)) *Emulated {
	return &Emulated{read: read}
}

func (e *Emulated) Name() string         { return "emulated" }
func (e *Emulated) Series() []SeriesInfo { return emulatedSeries }

func (e *Emulated) Read(_ context.Context, now time.Time, r *Reading) error {
	e.d.begin(now)
	devs, err := e.read()
	if err != nil {
		return fmt.Errorf("emulated devices: %w", err)
	}
	for _, dev := range devs {
		base := join("emu", label(dev.Name))
		counters := map[string]float64{
			"reads": float64(dev.Reads), "writes": float64(dev.Writes), "flushes": float64(dev.Flushes),
			"media_reads": float64(dev.MediaReads), "media_writes": float64(dev.MediaWrites),
			"read_bytes": float64(dev.ReadBytes), "write_bytes": float64(dev.WriteBytes),
			"busy_s": dev.Busy.Seconds(), "latency_s": dev.Latency.Seconds(), "read_latency_s": dev.ReadLatency.Seconds(),
		}
		delta, secs, ok := e.d.device(r, base, counters)
		r.Value(base+".queue_depth", float64(dev.QueueDepth))
		if !ok {
			continue
		}
		ioValues(r, base, delta, secs)
		r.Value(base+".media_read_iops", delta["media_reads"]/secs)
		r.Value(base+".media_write_iops", delta["media_writes"]/secs)
		r.Value(base+".await_ms", perIO(delta["latency_s"], delta["reads"]+delta["writes"]+delta["flushes"]))
	}
	e.d.commit()
	return nil
}
