package study

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"tierbench/internal/energy"
	"tierbench/internal/report"
	"tierbench/internal/resultfile"
)

// Groups of the metrics a report reads from a run's result file beyond its headline
// metrics; each is absent from a run whose result lacks its section.
const (
	groupHeadline = "headline"
	groupLatency  = "latency"
	groupDevices  = "devices"
	groupEnergy   = "energy"
	// groupMonitoring are the host's CPU shares over the headline window, from the
	// monitoring section.
	groupMonitoring = "monitoring"
	// groupParts are the energy components of the run window, for stacked bars.
	groupParts = "energy-parts"
)

// metricDef is a report metric and the group its section of the report shows it in.
type metricDef struct {
	report.Metric
	group string
}

// verdictLine is what a run's verdict section says of its headline window.
type verdictLine struct {
	Window, Primary, Headline string
}

// runNotes are what a run's result says beyond its numbers: its verdict, and what its
// energy total leaves out of the whole system (energy is false without an energy
// section).
type runNotes struct {
	verdict       *verdictLine
	energy        bool
	energyMissing []energy.Unavailable
}

// extras are the numbers of a run's result file beyond its headline metrics, each
// with its definition: latency percentiles, each emulated device's utilisation and
// MB/s over the measured window (or, without one, from mount to unmount), the
// engine's MB/s, tierbench's CPU, the whole system's energy and CO2 over the run
// and each component's share, the emulated devices' energy and CO2, the host's CPU
// busy and iowait shares over the headline window; and the run's verdict, when it
// has one, and what its energy total leaves out.
func extras(rec *RunRecord) ([]metricDef, map[string]float64, runNotes, error) {
	var notes runNotes
	if rec.Result == "" {
		return nil, nil, notes, nil
	}
	path := rec.Result
	if !filepath.IsAbs(path) {
		path = filepath.Join(rec.Dir, path)
	}
	rs, err := resultfile.Read(path) // as the run report reads it
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, notes, nil
	}
	if err != nil {
		return nil, nil, notes, err
	}
	var defs []metricDef
	vals := map[string]float64{}
	add := func(group, key, label, unit string, lower bool, v float64) {
		defs = append(defs, metricDef{newMetric(key, label, unit, lower), group})
		vals[key] = v
	}
	for _, l := range rs.Levels {
		if l.Users == rs.Users {
			add(groupLatency, "latency_p50_ms", "latency p50", "ms", true, l.Latency.P50)
			add(groupLatency, "latency_p95_ms", "latency p95", "ms", true, l.Latency.P95)
			add(groupLatency, "latency_p99_ms", "latency p99", "ms", true, l.Latency.P99)
			break
		}
	}
	if rs.IO != nil && len(rs.IO.Devices) > 0 {
		for _, d := range rs.IO.Devices {
			add(groupDevices, "util_"+key(d.Name), d.Name+" tier utilisation", "%", false, 100*d.Util)
			add(groupDevices, "mb_s_"+key(d.Name), d.Name+" tier MB/s (read + write)", "MB/s", false, d.ReadMBs+d.WriteMBs)
		}
	} else if rs.Storage != nil {
		for _, t := range rs.Storage.Tiers {
			if t.Device != nil {
				add(groupDevices, "util_"+key(t.Name), t.Name+" tier utilisation", "%", false, 100*t.Device.Utilisation)
			}
		}
	}
	if rs.IO != nil && rs.IO.Engine != nil {
		add(groupDevices, "engine_mb_s", "engine MB/s (read + write)", "MB/s", false, rs.IO.Engine.ReadMBs+rs.IO.Engine.WriteMBs)
	}
	if rs.ClientCPU != nil {
		add(groupDevices, "client_cpu_cores", "tierbench CPU (with an embedded engine)", "cores", true, rs.ClientCPU.Cores)
	}
	if rs.Energy != nil {
		if w := rs.Energy.Window("run"); w != nil {
			// Labelled by what every run's total leaves out (energyMissing.label).
			add(groupEnergy, "energy_j", "energy of the run", "J", true, w.Total.Joules)
			add(groupEnergy, "co2_g", "CO2 of the run", "g", true, w.Total.CO2g)
			notes.energy, notes.energyMissing = true, w.Missing
			for _, c := range w.Components {
				if c.InTotal {
					add(groupParts, "energy_"+key(c.Name)+"_j", c.Name, "J", true, c.Joules)
				}
			}
		}
	}
	if st := rs.Storage; st != nil && len(st.Tiers) > 0 {
		add(groupEnergy, "device_energy_j", "emulated devices' energy", "J", true, st.EnergyJ)
		add(groupEnergy, "device_co2_g", "emulated devices' CO2", "g", true, st.CO2g)
	}
	window := ""
	if v := rs.Verdict; v != nil {
		notes.verdict = &verdictLine{Window: v.Window, Primary: v.Primary.Title(), Headline: v.Headline}
		window = v.Window
	}
	if m := rs.Monitoring; m != nil {
		w := m.Window(window)
		if w == nil {
			w = m.Level(rs.Users)
		}
		if w == nil {
			w = m.Run
		}
		if w != nil {
			for _, s := range []struct{ series, key, label string }{
				{"host.cpu.all.busy_pct", "host_cpu_busy_pct", "host CPU busy"},
				{"host.cpu.all.iowait_pct", "host_cpu_iowait_pct", "host CPU iowait"},
			} {
				if st, ok := w.Series[s.series]; ok && st.N > 0 {
					add(groupMonitoring, s.key, s.label, "%", false, st.Mean)
				}
			}
		}
	}
	return defs, vals, notes, nil
}

// key makes a name (a tier, an energy component such as storage:data) part of a
// metric key.
func key(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return '_'
	}, name)
}
