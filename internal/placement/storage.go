package placement

import (
	"time"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
	"tierbench/internal/energy"
	"tierbench/internal/result"
)

// DefaultGridIntensity is the CO2 intensity of electricity used when none is given,
// in grams of CO2 per kWh (energy.DefaultGridIntensity).
const DefaultGridIntensity = energy.DefaultGridIntensity

// GridIntensitySource names where DefaultGridIntensity comes from.
const GridIntensitySource = energy.GridIntensitySource

// energyModel is Storage.EnergyModel (docs/energy.md, "The model").
const energyModel = "E = P_idle x T + (P_active - P_idle) x T_busy per device of the spec (a system-scope profile counts its own watts only); " +
	"T from mount to unmount, T_busy the model's busy time; CO2 = kWh x grid intensity"

func summarise(h *emulator.Histogram) result.LatencySummary {
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	return result.LatencySummary{
		Count: h.Count(), Mean: us(h.Mean()), P50: us(h.Quantile(0.5)), P90: us(h.Quantile(0.9)),
		P99: us(h.Quantile(0.99)), P999: us(h.Quantile(0.999)), Max: us(h.Max()),
	}
}

// deviceResult turns a device's final counters into its result. idleJ is what the
// device draws idle over st.Elapsed (the spec's fresh model, busy 0).
func deviceResult(st emulator.DeviceStats, idleJ, gPerKWh float64) *result.DeviceResult {
	sec := st.Elapsed.Seconds()
	d := &result.DeviceResult{
		ElapsedS: sec, Reads: st.Reads, Writes: st.Writes, Flushes: st.Flushes,
		ReadBytes: st.ReadBytes, WriteBytes: st.WriteBytes, BusyS: st.Busy.Seconds(),
		Utilisation: st.Utilisation, MeanQueue: st.MeanQueue, MaxQueue: st.MaxQueue,
		Latency: summarise(&st.Latency), ReadLatency: summarise(&st.ReadLatency),
		WriteLatency: summarise(&st.WriteLatency), FlushLatency: summarise(&st.FlushLatency),
		Hits: st.Model.Hits, Misses: st.Model.Misses, Writebacks: st.Model.Writebacks, ReadaheadPages: st.Model.ReadaheadPages,
		FloorUs: st.FloorUs, TooFast: st.TooFast, Path: st.Path, FastHits: st.FastHits, FastHitMisses: st.FastHitMisses,
		EnergyJ: st.EnergyJ, IdleEnergyJ: idleJ, ActiveEnergyJ: st.EnergyJ - idleJ,
		CO2g: energy.CO2Grams(st.EnergyJ, gPerKWh),
	}
	if st.TimingError != nil {
		te := summarise(st.TimingError)
		d.TimingError = &te
	}
	if st.Ring != nil {
		h := result.RingHealth(*st.Ring)
		d.Ring = &h
	}
	d.MediaReads, d.MediaWrites = st.Media()
	if sec > 0 {
		d.ReadIOPS = float64(st.Reads) / sec
		d.WriteIOPS = float64(st.Writes) / sec
		d.IOPS = d.ReadIOPS + d.WriteIOPS
		d.MediaIOPS = float64(d.MediaReads+d.MediaWrites) / sec
	}
	return d
}

// profileInfo describes the profile of spec and the idle energy of its devices over
// elapsed (from a fresh model, whose busy time is 0), with that model (nil when spec
// builds none).
func profileInfo(reg *device.Registry, spec string, elapsed time.Duration) (*result.ProfileInfo, float64, device.Model) {
	if spec == emulator.NullSpec || reg == nil {
		return &result.ProfileInfo{Name: spec, Class: spec}, 0, nil
	}
	p, err := reg.Resolve(spec)
	if err != nil {
		return &result.ProfileInfo{Name: spec}, 0, nil
	}
	info := &result.ProfileInfo{Name: p.Name, Class: p.Class, Description: p.Description, Source: p.Source, Power: p.Power()}
	m, err := reg.Build(spec)
	if err != nil {
		return info, 0, nil
	}
	device.Walk(m, func(depth int, mm device.Model) {
		if pw, ok := mm.(device.Powered); ok && depth > 0 && (pw.Power().IdleW != 0 || pw.Power().ActiveW != 0) {
			info.Members = append(info.Members, result.MemberPower{Name: mm.Name(), Power: pw.Power()})
		}
	})
	return info, device.Energy(m, elapsed), m
}
