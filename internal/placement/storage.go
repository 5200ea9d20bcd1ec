package placement

import (
	"time"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
	"tierbench/internal/emulator/preload"
)

// DefaultGridIntensity is the CO2 intensity of electricity used when none is given,
// in grams of CO2 per kWh: the world average CodeCarbon falls back to.
const DefaultGridIntensity = 475.0

// GridIntensitySource names where DefaultGridIntensity comes from.
const GridIntensitySource = "world average, CodeCarbon's fallback (Our World in Data / Ember)"

// Storage is the storage section of a result: where each class of files was, what
// each emulated device did and used, and what placement set on the engine.
type Storage struct {
	// Placement maps a class (data, wal, temp) to the tier it was on.
	Placement map[string]string `json:"placement"`
	Tiers     []TierResult      `json:"tiers"`
	// FlushMethod is --flush-method ("" for the engine's default).
	FlushMethod FlushMethod `json:"flush_method,omitempty"`
	// Settings are the engine settings placement added, each with its reason; a
	// setting the user gave (--set) is not overridden and not listed.
	Settings []Setting `json:"settings,omitempty"`
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

// energyModel is Storage.EnergyModel (energy.md, "The model").
const energyModel = "E = P_idle x T + (P_active - P_idle) x T_busy per device of the spec (a system-scope profile counts its own watts only); " +
	"T from mount to unmount, T_busy the model's busy time; CO2 = kWh x grid intensity"

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
	// FloorUs is the path's own round trip on this host: taken off each completion on
	// a mount, spent inside the model's time on the preload path.
	FloorUs float64 `json:"floor_us,omitempty"`
	TooFast bool    `json:"too_fast,omitempty"`
	// Path is fuse or preload. On the preload path TimingError is how long after the
	// model's completion requests returned to the engine (the emulation's own error),
	// and Ring what the engine's processes reported through the ring.
	Path        string          `json:"path,omitempty"`
	TimingError *LatencySummary `json:"timing_error_us,omitempty"`
	Ring        *preload.Health `json:"ring,omitempty"`
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

func summarise(h *emulator.Histogram) LatencySummary {
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	return LatencySummary{
		Count: h.Count(), Mean: us(h.Mean()), P50: us(h.Quantile(0.5)), P90: us(h.Quantile(0.9)),
		P99: us(h.Quantile(0.99)), P999: us(h.Quantile(0.999)), Max: us(h.Max()),
	}
}

// CO2Grams is the CO2 of joules of electricity at gPerKWh grams per kWh.
func CO2Grams(joules, gPerKWh float64) float64 {
	return joules / 3.6e6 * gPerKWh
}

// deviceResult turns a device's final counters into its result. idleJ is what the
// device draws idle over st.Elapsed (the spec's fresh model, busy 0).
func deviceResult(st emulator.DeviceStats, idleJ, gPerKWh float64) *DeviceResult {
	sec := st.Elapsed.Seconds()
	d := &DeviceResult{
		ElapsedS: sec, Reads: st.Reads, Writes: st.Writes, Flushes: st.Flushes,
		ReadBytes: st.ReadBytes, WriteBytes: st.WriteBytes, BusyS: st.Busy.Seconds(),
		Utilisation: st.Utilisation, MeanQueue: st.MeanQueue, MaxQueue: st.MaxQueue,
		Latency: summarise(&st.Latency), ReadLatency: summarise(&st.ReadLatency),
		WriteLatency: summarise(&st.WriteLatency), FlushLatency: summarise(&st.FlushLatency),
		Hits: st.Model.Hits, Misses: st.Model.Misses, Writebacks: st.Model.Writebacks,
		FloorUs: st.FloorUs, TooFast: st.TooFast, Path: st.Path, Ring: st.Ring,
		EnergyJ: st.EnergyJ, IdleEnergyJ: idleJ, ActiveEnergyJ: st.EnergyJ - idleJ,
		CO2g: CO2Grams(st.EnergyJ, gPerKWh),
	}
	if st.TimingError != nil {
		te := summarise(st.TimingError)
		d.TimingError = &te
	}
	d.MediaReads, d.MediaWrites = st.Reads, st.Writes
	if len(st.Members) > 0 {
		d.MediaReads, d.MediaWrites = 0, 0
		for i, m := range st.Members {
			if i+1 < len(st.Members) && st.Members[i+1].Depth > m.Depth {
				continue // not a leaf: its requests are counted by its members
			}
			d.MediaReads += m.Stats.Reads
			d.MediaWrites += m.Stats.Writes
		}
	}
	if sec > 0 {
		d.ReadIOPS = float64(st.Reads) / sec
		d.WriteIOPS = float64(st.Writes) / sec
		d.IOPS = d.ReadIOPS + d.WriteIOPS
		d.MediaIOPS = float64(d.MediaReads+d.MediaWrites) / sec
	}
	return d
}

// profileInfo describes the profile of spec and the idle energy of its devices over
// elapsed (from a fresh model, whose busy time is 0).
func profileInfo(reg *device.Registry, spec string, elapsed time.Duration) (*ProfileInfo, float64) {
	if spec == emulator.NullSpec || reg == nil {
		return &ProfileInfo{Name: spec, Class: spec}, 0
	}
	p, err := reg.Resolve(spec)
	if err != nil {
		return &ProfileInfo{Name: spec}, 0
	}
	info := &ProfileInfo{Name: p.Name, Class: p.Class, Description: p.Description, Source: p.Source, Power: p.Power()}
	m, err := reg.Build(spec)
	if err != nil {
		return info, 0
	}
	device.Walk(m, func(depth int, mm device.Model) {
		if pw, ok := mm.(device.Powered); ok && depth > 0 && (pw.Power().IdleW != 0 || pw.Power().ActiveW != 0) {
			info.Members = append(info.Members, MemberPower{Name: mm.Name(), Power: pw.Power()})
		}
	})
	return info, device.Energy(m, elapsed)
}
