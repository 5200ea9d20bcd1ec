package result

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"tierbench/internal/device"
	"tierbench/internal/energy"
	"tierbench/internal/engine"
)

// Storage is the storage section of a result: where each class of files was, what
// each emulated device did and used, and what placement set on the engine.
type Storage struct {
	// Placement maps a class (data, wal, temp) to the tier it was on.
	Placement map[string]string `json:"placement"`
	Tiers     []TierResult      `json:"tiers"`
	// FlushMethod is --flush-method ("" for the engine's default).
	FlushMethod engine.FlushMethod `json:"flush_method,omitempty"`
	// Settings are the engine settings placement added, each with its reason; a
	// setting the user gave (--set) is not overridden and not listed.
	Settings []engine.Setting `json:"settings,omitempty"`
	// EnergyJ sums the emulated devices' energy; CO2g is its CO2 at GridIntensity.
	EnergyJ             float64 `json:"device_energy_j"`
	CO2g                float64 `json:"device_co2_g"`
	GridIntensity       float64 `json:"grid_intensity_g_per_kwh"`
	GridIntensitySource string  `json:"grid_intensity_source"`
	// EnergyModel says how EnergyJ is computed.
	EnergyModel string `json:"energy_model"`
	// Emulator says how the emulated tiers reached the device models (absent when no
	// tier was emulated).
	Emulator *EmulatorInfo `json:"emulator,omitempty"`
}

// EmulatorInfo is how a run's emulated tiers reached the device models.
type EmulatorInfo struct {
	// Requested is --emulator: fuse, preload or auto.
	Requested string `json:"requested"`
	// Path is what the run used: fuse or preload.
	Path string `json:"path"`
	// Fallback says why auto took FUSE.
	Fallback string `json:"fallback,omitempty"`
	// EngineIO compares, on the preload path, the engine's own I/O counters with
	// what the devices saw over the same time (absent when the engine has no
	// counters or some of its files were not on emulated tiers).
	EngineIO *EngineIOCheck `json:"engine_io_check,omitempty"`
}

// EngineIOCheck is the engine's count of the bytes it read and wrote against the
// emulated devices' count, from the engine's opening to its closing. Devices that saw
// much less written than the engine counted were bypassed: their counters, and the
// run's figures, miss the engine's I/O. With the WAL on a tier of its own, the log's
// bytes are compared with that tier's (LogTier) and the rest with the others'.
type EngineIOCheck struct {
	EngineRead    int64 `json:"engine_read_bytes"`
	EngineWritten int64 `json:"engine_written_bytes"`
	// EngineLog is the part of EngineWritten that is the WAL (redo log).
	EngineLog     int64  `json:"engine_log_bytes"`
	DeviceRead    int64  `json:"device_read_bytes"`
	DeviceWritten int64  `json:"device_written_bytes"`
	LogTier       string `json:"log_tier,omitempty"`
	LogTierWrites int64  `json:"log_tier_written_bytes,omitempty"`
	Source        string `json:"engine_counters"`
	Bypassed      bool   `json:"bypassed"`
}

// RingHealth is what the engine's processes reported about the preload path's ring
// as a whole: the emulator's preload.Health, converted field for field (placement),
// so the two keep the same fields and this package links no emulator.
type RingHealth struct {
	// Attached counts processes that mapped the ring (the shim's constructor, a VFS).
	Attached int64 `json:"attached"`
	// FullWaits counts requests that found every slot busy and waited for one.
	FullWaits int64 `json:"full_waits,omitempty"`
	// SlowAnswers counts requests whose answer came after their deadline (the server
	// was asleep or descheduled for longer than the device's latency).
	SlowAnswers int64 `json:"slow_answers,omitempty"`
	// Failed is the first failure a client reported: its requests were not timed.
	Failed string `json:"failed,omitempty"`
	// Unseen counts calls on a device's files whose I/O the ring cannot time (mmap,
	// native AIO, io_uring, sync_file_range); UnseenFirst names the first.
	Unseen      int64  `json:"unseen,omitempty"`
	UnseenFirst string `json:"unseen_first,omitempty"`
	// RealtimeConsumer: the server's consumer ran at a real-time priority and answered
	// at once on a busy host (false when the host refused it: it needs CAP_SYS_NICE or
	// an RLIMIT_RTPRIO above 0; then answers wait for a CPU there).
	RealtimeConsumer bool `json:"realtime_consumer,omitempty"`
}

// TierResult is one tier in the result.
type TierResult struct {
	Name string `json:"name"`
	// Kind is "emulated" or "directory".
	Kind string `json:"kind"`
	Spec string `json:"spec,omitempty"`
	// Dir is where the engine's files were: the mount point of an emulated tier.
	Dir     string        `json:"dir"`
	Classes []string      `json:"classes"`
	Profile *ProfileInfo  `json:"profile,omitempty"`
	Device  *DeviceResult `json:"device,omitempty"`
	// TraceFile holds every request of the run (--record-trace), for device replay.
	TraceFile string `json:"trace_file,omitempty"`
}

// ProfileInfo is the profile behind an emulated tier, with its power figures.
type ProfileInfo struct {
	Name        string       `json:"name"`
	Class       string       `json:"class"`
	Description string       `json:"description,omitempty"`
	Source      string       `json:"source,omitempty"`
	Power       device.Power `json:"power"`
	// Members are the powered devices inside a composite (a pagecache's disk, a
	// RAID's members), depth first, for specs whose own profile draws nothing.
	Members []MemberPower `json:"members,omitempty"`
}

// MemberPower is one powered device inside a composite spec.
type MemberPower struct {
	Name  string       `json:"name"`
	Power device.Power `json:"power"`
}

// DeviceResult is what an emulated device did from mount to unmount.
type DeviceResult struct {
	ElapsedS    float64 `json:"elapsed_s"`
	Reads       int64   `json:"reads"`
	Writes      int64   `json:"writes"`
	Flushes     int64   `json:"flushes"`
	ReadBytes   int64   `json:"read_bytes"`
	WriteBytes  int64   `json:"write_bytes"`
	BusyS       float64 `json:"busy_s"`
	Utilisation float64 `json:"utilisation"`
	// IOPS counts the reads and writes the database issued to the mount (not flushes)
	// per second of ElapsedS.
	IOPS      float64 `json:"iops"`
	ReadIOPS  float64 `json:"read_iops"`
	WriteIOPS float64 `json:"write_iops"`
	// MediaReads and MediaWrites are the requests that reached the storage media: the
	// innermost devices of a composite spec (the disk under a pagecache model, the
	// members of a RAID); for a plain profile the same as Reads and Writes. MediaIOPS
	// is their rate.
	MediaReads  int64   `json:"media_reads"`
	MediaWrites int64   `json:"media_writes"`
	MediaIOPS   float64 `json:"media_iops"`
	MeanQueue   float64 `json:"mean_queue_depth"`
	MaxQueue    int64   `json:"max_queue_depth"`
	// Latencies are in microseconds, arrival at the mount to reply.
	Latency      LatencySummary `json:"latency_us"`
	ReadLatency  LatencySummary `json:"read_latency_us"`
	WriteLatency LatencySummary `json:"write_latency_us"`
	FlushLatency LatencySummary `json:"flush_latency_us"`
	// Cache counters of a pagecache or ssd-cache model (pages or blocks).
	Hits       int64 `json:"cache_hits,omitempty"`
	Misses     int64 `json:"cache_misses,omitempty"`
	Writebacks int64 `json:"writebacks,omitempty"`
	// ReadaheadPages are the pages a pagecache model read ahead of the requests.
	ReadaheadPages int64 `json:"readahead_pages,omitempty"`
	// FloorUs is the path's own round trip on this host: taken off each completion on
	// a mount, spent inside the model's time on the preload path.
	FloorUs float64 `json:"floor_us,omitempty"`
	TooFast bool    `json:"too_fast,omitempty"`
	// Path is fuse or preload. On the preload path TimingError is how long after the
	// model's completion requests returned to the engine (the emulation's own error),
	// and Ring what the engine's processes reported through the ring.
	Path        string          `json:"path,omitempty"`
	TimingError *LatencySummary `json:"timing_error_us,omitempty"`
	Ring        *RingHealth     `json:"ring,omitempty"`
	// FastHits (preload, a page cache model on top) are the requests the engine's
	// processes served themselves at a copy's cost, the model told afterwards: reads
	// of pages it held, writes it would only copy; FastHitMisses those the model would
	// have made wait longer (a page evicted meanwhile, a write throttled).
	FastHits      int64 `json:"fast_hits,omitempty"`
	FastHitMisses int64 `json:"fast_hit_misses,omitempty"`
	// EnergyJ = IdleEnergyJ + ActiveEnergyJ: the idle watts over the whole time, and
	// the active watts' excess over the busy time.
	EnergyJ       float64 `json:"energy_j"`
	IdleEnergyJ   float64 `json:"idle_energy_j"`
	ActiveEnergyJ float64 `json:"active_energy_j"`
	CO2g          float64 `json:"co2_g"`
}

// LatencySummary summarises a latency histogram in microseconds.
type LatencySummary struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	Max   float64 `json:"max"`
}

// WriteSummary prints the storage section for people: one line per tier with its
// device's counters and energy, the total, and the settings placement added.
func (s *Storage) WriteSummary(w io.Writer) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "\nStorage")
	if s.FlushMethod != "" {
		fmt.Fprintf(w, " (flush method %s)", s.FlushMethod)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  tier\tholds\tdevice\treads\twrites\tflushes\tIOPS\tmedia IOPS\tutil\tp50 ms\tp99 ms\tenergy J")
	for _, t := range s.Tiers {
		holds := strings.Join(t.Classes, ",")
		if t.Device == nil {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.Name, holds, t.Dir)
			continue
		}
		d := t.Device
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\t%d\t%.1f\t%.1f\t%.1f%%\t%.3f\t%.3f\t%.1f\n", t.Name, holds, t.Spec,
			d.Reads, d.Writes, d.Flushes, d.IOPS, d.MediaIOPS, 100*d.Utilisation, d.Latency.P50/1e3, d.Latency.P99/1e3, d.EnergyJ)
	}
	tw.Flush()
	fmt.Fprintln(w, "  (reads, writes, IOPS: what the database asked of the device; media IOPS: what reached the device under a page cache or other composite)")
	if e := s.Emulator; e != nil && e.Path == "preload" {
		var late []string
		for _, t := range s.Tiers {
			if d := t.Device; d != nil && d.TimingError != nil {
				late = append(late, fmt.Sprintf("%s %.1f/%.1f", t.Name, d.TimingError.P50, d.TimingError.P99))
			}
		}
		fmt.Fprintf(w, "  emulated through the preload path (LD_PRELOAD shim or SQLite VFS); requests returned late by (p50/p99 us): %s\n", strings.Join(late, ", "))
		if c := e.EngineIO; c != nil {
			verdict := "nothing went around the preload path"
			if c.Bypassed {
				verdict = "BYPASSED: the devices missed the engine's writes"
			}
			fmt.Fprintf(w, "  the engine's own counters since it opened: %.1f MiB written (%.1f MiB WAL); the devices saw %.1f MiB: %s\n",
				float64(c.EngineWritten)/(1<<20), float64(c.EngineLog)/(1<<20), float64(c.DeviceWritten)/(1<<20), verdict)
		}
	} else if e != nil && e.Fallback != "" {
		fmt.Fprintln(w, "  emulated through FUSE, not the preload path: "+strings.TrimSpace(e.Fallback))
	}
	if s.EnergyJ > 0 {
		fmt.Fprintf(w, "  device energy %.1f J, %.3f g CO2 at %g g/kWh (%s)\n", s.EnergyJ, s.CO2g, s.GridIntensity, s.GridIntensitySource)
	}
	for _, t := range s.Tiers {
		if t.TraceFile != "" {
			fmt.Fprintf(w, "  I/O trace of %s: %s (replay it: tierbench device replay --trace %s --profile nvme)\n", t.Name, t.TraceFile, t.TraceFile)
		}
	}
	if len(s.Settings) > 0 {
		var set []string
		for _, st := range s.Settings {
			set = append(set, st.Name+"="+st.Value)
		}
		fmt.Fprintf(w, "  settings placement added: %s (reasons in result.json)\n", strings.Join(set, ", "))
	}
}

// EnergyDevices gives each emulated device's modelled energy to package energy, which
// counts it as one component of the whole system's: the figures are the storage
// section's own, not recomputed.
func (s *Storage) EnergyDevices() []energy.Device {
	if s == nil {
		return nil
	}
	var out []energy.Device
	for _, t := range s.Tiers {
		if t.Device == nil {
			continue
		}
		src := "E = P_idle x T + (P_active - P_idle) x T_busy from mount to unmount"
		if p := t.Profile; p != nil {
			watts := fmt.Sprintf("%g W idle, %g W active", p.Power.IdleW, p.Power.ActiveW)
			if p.Power.Source != "" {
				watts += " (" + p.Power.Source + ")"
			}
			if len(p.Members) > 0 {
				watts = fmt.Sprintf("its %d powered devices' watts", len(p.Members))
			}
			src = fmt.Sprintf("profile %s, %s; %s", p.Name, watts, src)
		}
		d := t.Device
		out = append(out, energy.Device{Name: t.Name, Spec: t.Spec, Joules: d.EnergyJ, IdleJoules: d.IdleEnergyJ,
			Seconds: d.ElapsedS, Source: src})
	}
	return out
}
